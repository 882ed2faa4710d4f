"""A hostile model reply never stalls the host: a real `laika host` process, a provider on
loopback replying with the bodies that did (60,000 empty citations held `host.ping` for
12.8 s; 1 MiB of LLMX for 4.6 s), pings sent one after another while the ask runs.

No wall-clock time is asserted (the cores are shared). What is measured is the CPU time of
the host's main thread, the one that runs the event loop, between two consecutive pongs:
while the loop is free that is a few milliseconds, whatever the worker threads do and however
slowly this test process is scheduled (an idle loop uses no CPU). Reading the reply on the
loop put all of its processing in one such gap: 3 to 25 CPU-s for the citations. Each gap
must stay under `MAX_LOOP_CPU`, and the host's whole CPU time for the ask under a bound.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from laika_host.llm.config import ContextFormat, ProviderConfig, save_providers

from llm_servers import ProviderServer, Reply, openai_sse
from native_client import ARTICLE, Client, HostProcess

pytestmark = [
    pytest.mark.slow,  # a host process each, and replies of up to 1 MiB
    pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc"),
]

MAX_LOOP_CPU = 0.2
"""CPU-s the event loop may spend between two pongs (measured: at most 0.06 now; reading
the reply on the loop, 0.29 to 24 for these bodies)."""
MAX_ASK_CPU = 8.0
"""CPU-s of the whole host for one hostile ask, streaming included (before: up to 25)."""
PIECE = 4096
TICK = os.sysconf("SC_CLK_TCK")
LLMX_HEAD = 'HEADER:{f:model,t:user,s:1}\nRES:{o:"ACK",msg:"The moon [1]."}\n'
MIB = 1 << 20


def _citations(doc_id: str) -> str:
    citation = json.dumps({"doc_id": doc_id, "quote": "the moon pulls the oceans"})
    count = (MIB - 64) // (len(citation) + 1)
    return json.dumps({"assistant": {"markdown": "The moon [1]."}}).replace(
        "}}", '}, "citations": [' + ",".join([citation] * count) + "]}"
    )


BODIES: dict[str, tuple[ContextFormat, Callable[[str], str], str]] = {
    # name: (the provider's context format, the reply for a packed doc id, text in the result)
    "60,000 empty citations": (
        "json",
        lambda _: (
            '{"assistant":{"markdown":"The moon [1]."},"citations":['
            + ",".join(["{}"] * 60_000)
            + "]}"
        ),
        "the reply has 60000 citations; only the first 64 were read (59936 dropped)",
    ),
    "1 MiB of LLMX": (
        "llmx",
        lambda doc: (LLMX_HEAD + f'RES:{{o:"{doc}",msg:""}}\n' * 60_000)[:MIB],
        "the reply is longer than 200000 characters",
    ),
    "deeply nested JSON": (
        "json",
        lambda _: (
            '{"assistant":{"markdown":"The moon."},"x":'
            + "[" * (MIB // 2 - 40)
            + "]" * (MIB // 2 - 40)
            + "}"
        ),
        "deeper than 100 levels",
    ),
    "1 MiB of valid citations": ("json", _citations, "cut at 200000"),
    "10,000 invalid nodes in one block": (
        "json",
        lambda _: json.dumps(
            {
                "assistant": {
                    "markdown": "The moon.",
                    "render": {
                        "type": "doc",
                        "children": [{"type": "paragraph", "children": [{"type": "x"}] * 10_000}],
                    },
                }
            }
        ),
        '"answer_markdown": "The moon."',
    ),
    "4,000 invalid tool calls": (
        "json",
        lambda _: json.dumps(
            {
                "assistant": {"markdown": "The moon."},
                "tool_calls": [{"name": "search", "arguments": {"query": 1}}] * 4_000,
            }
        ),
        "the reply has 4000 tool calls; only the first 32 were read (3968 dropped)",
    ),
}


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU time (user + system) of a process, or of one of its threads."""
    where = f"/proc/{pid}/task/{thread}/stat" if thread is not None else f"/proc/{pid}/stat"
    fields = Path(where).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15)


def start(
    tmp_path: Path, fmt: ContextFormat, build: Callable[[str], str]
) -> tuple[HostProcess, ProviderServer, str]:
    """A host with one saved page and a provider that answers once normally (the warm-up:
    the first ask imports the chat stack, on the loop), then with the hostile body."""
    host = HostProcess(tmp_path)
    client = Client(host)
    saved = client.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
    assert saved["ok"], saved
    body = build(f"src:{saved['result']['source']['id']}")
    warm = '{"assistant":{"markdown":"Warm."}}' if fmt == "json" else 'RES:{o:"ACK",msg:"Warm."}'
    pieces = [body[at : at + PIECE] for at in range(0, len(body), PIECE)]
    server = ProviderServer(
        [Reply(chunks=openai_sse([warm])), Reply(chunks=openai_sse(pieces))],
        only="/chat/completions",
    )
    provider = ProviderConfig(
        id="rec", kind="openai_compatible", model="m", base_url=server.url, context_format=fmt
    )
    save_providers([provider], tmp_path / "providers.json")
    warmed = client.call("chat.ask", {"question": "What does the moon do?", "provider": "rec"})
    assert warmed["ok"], warmed
    assert warmed["result"]["answer_markdown"] == "Warm."
    return host, server, body


@dataclass
class Watched:
    """How the hostile ask ended, and how the loop fared meanwhile."""

    terminal: dict[str, Any]
    loop_gaps: list[float]
    """CPU-s of the loop's thread between consecutive pongs (and to the terminal event)."""
    pongs_after_stream: int
    """Pongs that came after the whole reply was streamed and before the terminal event."""
    host_cpu: float
    """CPU-s of the whole host from the ask to its terminal event."""


def watch(host: HostProcess, body: str, *, cancel_after: int | None = None) -> Watched:
    """Send the ask, then one ping at a time until the ask's terminal event; with
    `cancel_after`, a `host.cancel` of the ask once that many pongs came after the whole
    reply was streamed (the host is reading the reply then)."""
    pid = host.proc.pid
    started = cpu_seconds(pid)
    ask = {"question": "What does the moon do?", "provider": "rec"}
    host.send({"id": "ask", "type": "chat.ask", "payload": ask})
    loop_cpu = [cpu_seconds(pid, pid)]
    streamed = sent = after_stream = 0
    chunks: dict[int, str] = {}

    def ping() -> None:
        nonlocal sent
        sent += 1
        host.send({"id": f"ping-{sent}", "type": "host.ping", "payload": {}})

    ping()
    while True:
        message = host.recv(timeout=600)
        if message.get("id") == f"ping-{sent}" and "ok" in message:
            assert message["ok"], message
            loop_cpu.append(cpu_seconds(pid, pid))
            after_stream += streamed == len(body)
            if after_stream == cancel_after:
                target = {"target_id": "ask"}
                host.send({"id": "cancel", "type": "host.cancel", "payload": target})
            ping()
        elif message.get("id") == "ask" and message.get("event") == "delta":
            streamed += len(message["data"]["text"])
        elif message.get("id") == "ask" and "chunk" in message:  # a large reply, in parts
            chunks[message["chunk"]["index"]] = message["data"]
            if len(chunks) == message["chunk"]["count"]:
                terminal = json.loads("".join(chunks[i] for i in sorted(chunks)))
                break
        elif message.get("id") == "ask" and "ok" in message:
            terminal = message
            break
    loop_cpu.append(cpu_seconds(pid, pid))
    gaps = [later - earlier for earlier, later in pairwise(loop_cpu)]
    return Watched(terminal, gaps, after_stream, cpu_seconds(pid) - started)


@pytest.mark.parametrize("name", list(BODIES))
def test_pings_are_answered_while_a_hostile_reply_is_read(tmp_path: Path, name: str) -> None:
    fmt, build, expected = BODIES[name]
    host, server, body = start(tmp_path, fmt, build)
    try:
        watched = watch(host, body)
    finally:
        host.kill()
        server.close()
    assert watched.terminal["ok"], watched.terminal
    assert expected in json.dumps(watched.terminal["result"]), watched.terminal["result"]
    assert watched.pongs_after_stream >= 1  # a ping answered after the reply, before its end
    worst = sorted(watched.loop_gaps)[-3:]
    assert max(watched.loop_gaps) < MAX_LOOP_CPU, f"the loop spent {worst} CPU-s without a pong"
    assert watched.host_cpu < MAX_ASK_CPU


def test_a_cancel_ends_the_ask_while_its_reply_is_read_and_drops_the_result(
    tmp_path: Path,
) -> None:
    """The cancel is sent once a pong came after the whole reply was streamed: the host is
    reading it (1 MiB of citations: about a CPU-s of schema check and redaction in a worker
    thread). The ask ends `cancelled` at once; nothing else comes for it, not even after the
    host has stopped (it waits for its worker threads), and its answer is not saved."""
    fmt, build, _ = BODIES["1 MiB of valid citations"]
    host, server, body = start(tmp_path, fmt, build)
    later: list[dict[str, Any]] = []
    try:
        watched = watch(host, body, cancel_after=1)
        host.send({"id": "history", "type": "chat.history", "payload": {}})
        while (message := host.recv(timeout=60)).get("id") != "history" or "ok" not in message:
            later.append(message)
        history = message
        assert host.close(timeout=120) == 0  # the worker's result, if any, is written by now
        while (frame := host.frames.get(timeout=10)) is not None:
            later.append(frame)
    finally:
        host.kill()
        server.close()
    assert not watched.terminal["ok"], watched.terminal
    assert watched.terminal["error"]["code"] == "cancelled", watched.terminal
    assert [m for m in later if m.get("id") == "ask"] == []
    turns = [(event["role"], event["markdown"]) for event in history["result"]["events"]]
    assert turns[-1] == ("user", "What does the moon do?")  # the question kept, no answer
    assert turns.count(("assistant", "Warm.")) == 1
