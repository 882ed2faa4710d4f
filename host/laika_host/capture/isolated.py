"""Captures run in a worker process, under a deadline.

Capture is CPU work done mostly in C (lxml, trafilatura, regexes) that holds the GIL: in a
thread of the host it starves the event loop, so pings and cancels wait for it. Every caller
(the native handlers, the job worker, the CLI) captures through here instead: one worker
process per host process, started on first use and reused, runs one capture at a time. A
capture that passes its deadline, or whose request is cancelled, gets its worker killed; the
next capture starts a new one. Nothing is stored until a capture has returned, so a kill
loses nothing saved.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import logging
import os
import pickle
import struct
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

from ..errors import InternalError
from .errors import CaptureError
from .models import Capture, CaptureOptions

CAPTURE_DEADLINE_SECONDS = 30.0
"""How long one capture may take (a 1 MB page takes under 5 s; a 10 MB page about 1 s)."""
DEADLINE_VARIABLE = "LAIKA_CAPTURE_DEADLINE_SECONDS"
STARTUP_SECONDS = 60.0
_LENGTH = struct.Struct("!Q")
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from laika_host.capture.isolated import serve; serve()"
)
log = logging.getLogger("laika.capture")


class CaptureWorkerError(InternalError, RuntimeError):
    """The worker failed in a way that is a bug or a broken installation, not the page."""


def capture_deadline() -> float:
    """The deadline in seconds: `$LAIKA_CAPTURE_DEADLINE_SECONDS` if positive, else 30."""
    try:
        configured = float(os.environ.get(DEADLINE_VARIABLE, ""))
    except ValueError:
        return CAPTURE_DEADLINE_SECONDS
    return configured if configured > 0 else CAPTURE_DEADLINE_SECONDS


class CaptureRunner:
    """Runs captures in one reusable worker process, one at a time."""

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline if deadline is not None else capture_deadline()
        self._worker: _Worker | None = None
        self._turn = threading.Lock()  # one capture at a time in the one worker
        self._state = threading.Lock()  # guards `_worker` and `_running` against `_abort`
        self._running: threading.Event | None = None
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="laika-capture")

    async def capture(
        self, html: str | bytes, url: str | None = None, *, options: CaptureOptions | None = None
    ) -> Capture:
        """Capture without blocking the event loop; cancelling the caller kills the capture."""
        cancelled = threading.Event()
        work = functools.partial(self.capture_blocking, html, url, options, cancelled)
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, work)
        except asyncio.CancelledError:
            cancelled.set()
            self._abort(cancelled)
            raise

    def capture_blocking(
        self,
        html: str | bytes,
        url: str | None = None,
        options: CaptureOptions | None = None,
        cancelled: threading.Event | None = None,
    ) -> Capture:
        """Capture in the worker and wait for it (at most the deadline)."""
        cancelled = cancelled or threading.Event()
        with self._turn:
            if cancelled.is_set():
                raise CaptureError("cancelled", "the capture was cancelled")
            worker = self._ready_worker()
            with self._state:
                if cancelled.is_set():  # while the worker started
                    raise CaptureError("cancelled", "the capture was cancelled")
                self._running = cancelled
            try:
                reply = worker.exchange((html, url, options), self.deadline)
            finally:
                with self._state:
                    self._running = None
            if reply is None:
                with self._state:
                    self._worker = None
                raise self._lost(worker, cancelled)
        return _result(reply)

    def close(self) -> None:
        """Stop the worker (a later capture starts a new one)."""
        with self._state:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    def _abort(self, cancelled: threading.Event) -> None:
        with self._state:
            if self._running is cancelled and self._worker is not None:
                self._worker.kill()

    def _ready_worker(self) -> _Worker:
        worker = self._worker
        if worker is None or not worker.alive():
            if worker is not None:
                worker.stop()  # died while idle (killed from outside): reap it
            worker = _Worker.start()
            with self._state:
                self._worker = worker
        return worker

    def _lost(self, worker: _Worker, cancelled: threading.Event) -> CaptureError:
        """Why the worker went away mid-capture, as the error the caller sees."""
        worker.stop()
        if cancelled.is_set():
            return CaptureError("cancelled", "the capture was cancelled")
        if worker.expired:
            return CaptureError(
                "too_slow",
                f"capturing this page took longer than {self.deadline:g} s and was stopped: the "
                "page is too large or too intricate to convert. Save a selection of the part "
                "you want instead.",
            )
        return CaptureError(
            "crashed",
            f"the capture process stopped unexpectedly (exit code {worker.exit_code}) on this "
            "page; try again, or save a selection of the part you want instead",
        )


def _result(reply: tuple[Any, ...]) -> Capture:
    outcome, logged = reply[0], reply[-1]
    for name, level, message in logged:  # the worker's log lines, into this process's log
        logging.getLogger(name).log(level, "%s", message)
    if outcome == "ok":
        capture: Capture = reply[1]
        return capture
    if outcome == "capture_error":
        raise CaptureError(reply[1], reply[2])
    error = CaptureWorkerError(f"capture failed: {reply[1]}: {reply[2]}")
    error.add_note(f"in the capture worker:\n{reply[3]}")
    raise error


class _Worker:
    """One worker process and the pipes to it; `expired` once the deadline killed it."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.expired = False

    @classmethod
    def start(cls) -> _Worker:
        package_root = str(Path(__file__).resolve().parents[2])
        process = subprocess.Popen(
            [sys.executable, "-c", _BOOT, package_root],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        worker = cls(process)
        if worker.exchange(None, STARTUP_SECONDS) != ("ready",):
            worker.stop()
            raise CaptureWorkerError(
                f"the capture worker did not start ({sys.executable}); run `laika doctor`"
            )
        worker.expired = False
        return worker

    def exchange(self, message: object, deadline: float) -> tuple[Any, ...] | None:
        """Send `message` (None: send nothing) and read the reply; None when the worker died
        or was killed (at `deadline`, or by `kill`)."""
        timer = threading.Timer(deadline, self._expire)
        timer.daemon = True
        timer.start()
        try:
            if message is not None:
                _send(self._stdin, message)
            reply = _receive(self._stdout)
        except (OSError, ValueError, EOFError, pickle.UnpicklingError):  # ValueError: closed
            reply = None
        finally:
            timer.cancel()
        return reply if isinstance(reply, tuple) else None

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        if self.alive():
            self.process.kill()

    def stop(self) -> None:
        """Close the pipes (an idle worker exits on its own) and reap the process."""
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    @property
    def exit_code(self) -> int | None:
        return self.process.poll()

    def _expire(self) -> None:
        self.expired = True
        self.kill()

    @property
    def _stdin(self) -> IO[bytes]:
        assert self.process.stdin is not None
        return self.process.stdin

    @property
    def _stdout(self) -> IO[bytes]:
        assert self.process.stdout is not None
        return self.process.stdout


def _send(pipe: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    pipe.write(_LENGTH.pack(len(data)))
    pipe.write(data)
    pipe.flush()


def _receive(pipe: IO[bytes]) -> Any:
    """One message from our own worker (or parent): pickle is safe between the two."""
    header = pipe.read(_LENGTH.size)
    if len(header) < _LENGTH.size:
        raise EOFError
    (length,) = _LENGTH.unpack(header)
    data = pipe.read(length)
    if len(data) < length:
        raise EOFError
    return pickle.loads(data)


_shared_lock = threading.Lock()


def shared_runner() -> CaptureRunner:
    """This process's runner (its worker starts on the first capture)."""
    with _shared_lock:
        return _new_shared_runner()


@functools.cache
def _new_shared_runner() -> CaptureRunner:
    runner = CaptureRunner()
    atexit.register(runner.close)
    return runner


async def capture_isolated(
    html: str | bytes, url: str | None = None, *, options: CaptureOptions | None = None
) -> Capture:
    """`capture_document` (a page or a PDF) in this process's worker, without blocking the
    event loop."""
    return await shared_runner().capture(html, url, options=options)


def capture_isolated_blocking(
    html: str | bytes, url: str | None = None, *, options: CaptureOptions | None = None
) -> Capture:
    """`capture_document` in this process's worker, for callers without an event loop (the
    CLI)."""
    return shared_runner().capture_blocking(html, url, options)


# --- the worker process ------------------------------------------------------------------


def serve() -> None:
    """The worker's main loop: read a page (or PDF), capture it, write the result, until EOF."""
    import signal
    import traceback

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print() must never reach the reply pipe
    requests = os.fdopen(0, "rb")
    capture_document = _warm_up()
    logged = _keep_log_lines()
    _send(replies, ("ready",))
    while True:
        try:
            html, url, options = _receive(requests)
        except EOFError:
            return
        try:
            reply: tuple[Any, ...] = ("ok", capture_document(html, url, options=options))
        except CaptureError as error:
            reply = ("capture_error", error.kind, str(error))
        except Exception as error:
            reply = ("failed", type(error).__name__, str(error), traceback.format_exc())
        _send(replies, (*reply, list(logged)))
        logged.clear()


def _keep_log_lines() -> list[tuple[str, int, str]]:
    """Collect what capture logs (`laika.*`), to send with each reply: the host's log file
    belongs to the host process."""
    lines: list[tuple[str, int, str]] = []
    text = logging.Formatter("%(message)s")

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append((record.name, record.levelno, text.format(record)))

    root = logging.getLogger("laika")
    root.addHandler(Keep(logging.INFO))
    root.setLevel(logging.INFO)
    root.propagate = False
    return lines


def _warm_up() -> Any:
    """Import everything a capture uses, so that the deadline times captures, not imports."""
    import pypdf  # noqa: F401
    from readability import Document  # noqa: F401
    from trafilatura.core import bare_extraction  # noqa: F401
    from trafilatura.htmlprocessing import convert_to_html  # noqa: F401

    from .document import capture_document

    capture_document(_WARM_UP_PAGE, "https://warm-up.invalid/")  # first-use costs, paid here
    return capture_document


_WARM_UP_PAGE = (
    "<html><head><title>Warm-up</title></head><body><nav><a href='/'>Home</a></nav><article>"
    "<h1>Warm-up</h1>"
    + "<p>A paragraph with <a href='https://example.org/'>a link</a>, <em>emphasis</em> and "
    "<code>code</code>, long enough to count as the main text of a page.</p>"
    * 6
    + "<ul><li>one</li><li>two</li></ul><table><tr><th>a</th></tr><tr><td>1</td></tr></table>"
    "<pre><code>print(1)</code></pre></article><footer>Footer</footer></body></html>"
)
"""A small page that runs every stage of a capture once (a fresh worker's first capture
took 0.13 s, later ones 3 ms)."""
