"""Time to first token through our adapter vs raw httpx reading the same stream, same run.

    .venv/bin/python bench/llm_ttft.py [--runs 40] [--no-real]

Two servers: a loopback server streaming OpenAI-shaped SSE after a simulated 100 ms prefill,
and (unless --no-real) the real llama-server + SmolLM2 (built and cached on first use, see
`laika local-model setup`). For each, raw httpx (first `data:` line carrying content) and
`ChatClient.stream` (first TextDelta) alternate request by request on warm connections.
Goal from issue 6: our overhead <= 5% of the time to first token.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from laika_host.llm.client import ChatClient
from laika_host.llm.config import ProviderConfig
from laika_host.llm.contract import ChatMessage, ChatRequest
from laika_host.llm.events import TextDelta

from llm_servers import ProviderServer, Reply, openai_sse

PREFILL_SECONDS = 0.1
REQUEST = ChatRequest(
    model="smollm2",
    messages=[ChatMessage(role="user", content="Say hello in five words.")],
    max_tokens=16,
    temperature=0,
)


async def raw_ttft(http: httpx.AsyncClient, url: str) -> float:
    body = {
        "model": REQUEST.model,
        "messages": [m.model_dump(exclude_none=True) for m in REQUEST.messages],
        "max_tokens": REQUEST.max_tokens,
        "temperature": 0,
        "stream": True,
    }
    started = time.perf_counter()
    elapsed = None
    async with http.stream("POST", f"{url}/chat/completions", json=body) as response:
        async for line in response.aiter_lines():  # read to the end, as ours does
            if elapsed is None and line.startswith("data: {"):
                chunk = json.loads(line[5:])
                if chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
                    elapsed = time.perf_counter() - started
    if elapsed is None:
        raise RuntimeError("no content in the stream")
    return elapsed


async def our_ttft(client: ChatClient, provider: ProviderConfig) -> float:
    started = time.perf_counter()
    elapsed = None
    async for event in client.stream(provider, REQUEST):
        if isinstance(event, TextDelta) and elapsed is None:
            elapsed = time.perf_counter() - started
    if elapsed is None:
        raise RuntimeError("no TextDelta in the stream")
    return elapsed


async def compare(label: str, base_url: str, runs: int) -> None:
    provider = ProviderConfig(
        id="bench", kind="openai_compatible", model="smollm2", base_url=base_url
    )
    raw, ours = [], []
    async with httpx.AsyncClient(timeout=60) as http, ChatClient() as client:
        await raw_ttft(http, base_url)  # warm both connections
        await our_ttft(client, provider)
        for _ in range(runs):
            raw.append(await raw_ttft(http, base_url))
            ours.append(await our_ttft(client, provider))
    raw_ms, our_ms = statistics.median(raw) * 1000, statistics.median(ours) * 1000
    overhead = (our_ms - raw_ms) / raw_ms * 100
    print(
        f"{label:34} raw httpx {raw_ms:8.2f} ms   ours {our_ms:8.2f} ms   "
        f"overhead {our_ms - raw_ms:+.2f} ms ({overhead:+.1f}%, goal <= 5%)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--no-real", action="store_true", help="skip the real llama-server")
    args = parser.parse_args()
    print(f"time to first token, median of {args.runs} alternating runs")
    server = ProviderServer(
        [Reply(chunks=openai_sse(["Hello", " there", "!"]), delay_before=PREFILL_SECONDS)]
    )
    try:
        asyncio.run(compare("loopback SSE, 100 ms prefill", server.url, args.runs))
    finally:
        server.close()
    if not args.no_real:
        from laika_host.llm.local_model import LocalServer

        with LocalServer() as real:
            asyncio.run(compare("llama-server + SmolLM2-135M", f"{real.base_url}/v1", args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
