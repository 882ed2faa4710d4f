"""End to end: a page planting every kind of secret in its title, byline, H1, body, URL,
fragment, links, images and canonical link is saved through the real native host, asked about
with the offline runtime and logged about; not one planted secret is in any byte of the
database, its WAL or the logs afterwards."""

from __future__ import annotations

import asyncio
import html
import json
import os
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from laika_host.agent.flows import ask
from laika_host.capture import CaptureOptions, capture_html
from laika_host.llm.config import ProviderConfig
from laika_host.store import open_store
from secret_corpus import (
    AWS_ACCESS,
    ESCAPED_TAIL,
    GITHUB_CLASSIC,
    GITHUB_FINE,
    GITLAB,
    GOOGLE_KEY,
    JWT,
    NBSP_PASSWORD,
    NPM,
    OPENAI,
    PASSWORD,
    PLANTED,
    PLANTED_URLS,
    SLACK_BOT,
    SPACED_API_KEY,
    STRIPE_LIVE,
    URL_PASSWORD,
)

from llm_servers import ProviderServer, Reply, openai_sse
from native_client import Client, HostProcess

PAGE_URL = f"https://example.org/story?jwt={JWT}&page=2#access_token={OPENAI}"
BAD_PORT_URL = f"https://admin:{URL_PASSWORD}@example.org:99999/story?id=1"


def _page() -> str:
    body = "".join(f"<p>{html.escape(p.text)}</p>" for p in PLANTED if "\n" not in p.text)
    blocks = "".join(f"<pre><code>{html.escape(p.text)}</code></pre>" for p in PLANTED)
    links = "".join(
        f'<li><a href="{html.escape(url)}">link {n} {html.escape(SLACK_BOT)}</a></li>'
        for n, (url, _) in enumerate(PLANTED_URLS)
    )
    return (
        f"<html><head><title>Keys: {OPENAI} and password: {PASSWORD}</title>"
        f'<meta name="author" content="Jane Doe {GITHUB_CLASSIC}">'
        f'<link rel="canonical" href="https://example.org/story?api_token={STRIPE_LIVE}">'
        f"</head><body><article><h1>Leaked {AWS_ACCESS} today</h1>"
        "<p>Tides rise and fall twice a day because the moon pulls the oceans toward it.</p>"
        f"{body}{blocks}<ul>{links}</ul>"
        f'<img src="https://cdn.example.org/a.png?X-Goog-Signature={GOOGLE_KEY}" alt="chart">'
        "<p>Sailors read the tide tables before leaving port every single morning.</p>"
        "</article></body></html>"
    )


def _planted() -> set[str]:
    """Every planted secret, and a 16-character prefix of each long one (a key cut in the
    middle, as a preview or a length bound would cut it, must not survive either)."""
    secrets = {p.secret for p in PLANTED} | {secret for _, secret in PLANTED_URLS}
    return secrets | {secret[:16] for secret in secrets if len(secret) >= 24}


@pytest.mark.slow  # > 3 s with the cores busy
def test_no_planted_secret_reaches_the_database_its_wal_or_the_logs(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        page = _page()
        for url in (PAGE_URL, BAD_PORT_URL):
            saved = client.call(
                "sources.save_page", {"url": url, "html": page, "title": f"tab {SLACK_BOT}"}
            )
            assert saved["ok"], saved
        question = (
            f"Why do tides rise? my key is {OPENAI}, Your API key: {SPACED_API_KEY} "
            f"and Password:\u00a0{NBSP_PASSWORD}"
        )
        answer = client.call("chat.ask", {"question": question})
        assert answer["ok"], answer
        assert answer["result"]["citations"], answer  # the sources were read and quoted
        summary = client.call("page.summarize", {"url": PAGE_URL, "html": page})
        assert summary["ok"], summary
        logged = client.call(
            "host.log",
            {
                "level": "warning",
                "message": (
                    f"Authorization: Bearer {JWT} Cookie: sid={PASSWORD} "
                    f'ext error: {{"password": "x\\"{ESCAPED_TAIL}"}} Your API key: {SPACED_API_KEY}'
                ),
                "context": {"token": STRIPE_LIVE, "url": PLANTED_URLS[0][0]},
            },
        )
        assert logged["ok"], logged
        assert host.close() == 0
    finally:
        host.kill()
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "laika.db" for p in files)
    assert any(p.name == "host.log" for p in files)
    leaks = {
        f"{path.relative_to(tmp_path)}: {secret[:24]}"
        for path in files
        for secret in _planted()
        if secret.encode() in path.read_bytes()
    }
    assert not leaks, sorted(leaks)
    assert not any(secret in host.stderr for secret in _planted())


def test_a_model_echoing_the_users_key_is_stored_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["LAIKA_HOME"])
    monkeypatch.setenv("ECHO_API_KEY", "not-a-real-key")
    echo = json.dumps(
        {
            "assistant": {
                "markdown": f"Your key {OPENAI} and {STRIPE_LIVE} look valid. " * 3
                + f"Your API key: {SPACED_API_KEY} is valid; Password:\u00a0{NBSP_PASSWORD} too."
            },
            "citations": [{"doc_id": "src:x", "quote": f"the key {GITHUB_CLASSIC}"}],
        }
    )
    server = ProviderServer([Reply(chunks=openai_sse([echo[:40], echo[40:]]))])
    provider = ProviderConfig(
        id="rec", kind="openai", model="m", base_url=server.url, api_key_env="ECHO_API_KEY"
    )

    async def main() -> None:
        async with open_store() as store:
            capture = capture_html(_page().encode(), PAGE_URL)
            await store.sources.save_capture("Keys", capture)
            question = f"Is my key {OPENAI} valid? Is my API key: {SPACED_API_KEY}?"
            answer = await ask(store, question, "Keys", provider=provider)
            assert answer.status == "ok", answer.warnings

    try:
        asyncio.run(main())
    finally:
        server.close()
    [received] = server.received
    sent = json.dumps(received.body)
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "audit.jsonl" for p in files)
    for secret in _planted() | {OPENAI[:16], STRIPE_LIVE[:16], GITHUB_CLASSIC[:16], NBSP_PASSWORD}:
        assert secret not in sent
        for path in files:
            assert secret.encode() not in path.read_bytes(), (path.name, secret)


SPLIT_KEYS = [GITHUB_CLASSIC, GITHUB_FINE, OPENAI, GITLAB, SLACK_BOT, GOOGLE_KEY, NPM, JWT]
INLINE = ["b", "strong", "em", "i", "code", "span", "mark", "s"]


@settings(max_examples=60, deadline=None)
@given(
    key=st.sampled_from(SPLIT_KEYS),
    at=st.floats(0.1, 0.9),
    tag=st.sampled_from(INLINE),
    closed_early=st.booleans(),
    mode=st.sampled_from(["auto", "selection"]),
)
# cut at the key's `_`: `e5f6&shy;\_g7h8` kept the tail (an escaped `_` after a soft hyphen)
@example(key=GITHUB_FINE, at=0.390625, tag="span", closed_early=False, mode="auto")
def test_a_key_split_by_inline_markup_leaves_the_capture_redacted(
    key: str, at: float, tag: str, closed_early: bool, mode: str
) -> None:
    """`ghp_<b>...</b>` on a page: the Markdown (`ghp\\_**...**`), the plain text and every
    other field of the capture lose the key once the markup is read through."""
    cut = max(5, int(len(key) * at))
    head, tail = html.escape(key[:cut]), html.escape(key[cut:])
    split = (
        f"{head}<{tag}>{tail[:4]}</{tag}>{tail[4:]}"
        if closed_early
        else f"{head}<{tag}>{tail}</{tag}>"
    )
    page = (
        "<html><head><title>Keys</title></head><body><article><h1>Keys</h1>"
        + "<p>Tides rise and fall twice a day because the moon pulls the oceans toward it.</p>" * 3
        + f"<p>The key is {split} and it is secret.</p>"
        + f"<p>Also &shy;{head}&shy;{tail}&shy; and {head}<wbr>{tail} here.</p>"
        + "</article></body></html>"
    )
    capture = capture_html(page, "https://example.org/keys", options=CaptureOptions(mode=mode))
    stored = json.dumps(capture.to_json(), ensure_ascii=False)
    for piece in {key[:12], key[-12:], key[cut - 4 : cut + 8]}:
        assert piece not in stored, (piece, capture.markdown)
        assert piece not in stored.replace("\\\\", ""), piece
