"""chat.ask, chat.history and page.summarize through the real host process: offline, and
with a recording model server streaming `delta` events."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from laika_host.llm.config import ProviderConfig, save_providers

from llm_servers import ProviderServer, Reply, openai_sse
from native_client import ARTICLE, Client, HostProcess


@pytest.mark.slow  # > 3 s with the cores busy
def test_offline_ask_summarize_and_history(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        saved = client.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
        assert saved["ok"], saved
        answer = client.call("chat.ask", {"question": "Why does high tide come twice a day?"})
        assert answer["ok"], answer
        result = answer["result"]
        assert result["status"] == "ok"
        assert result["provider"] == "offline"
        assert result["citations"]
        assert all(c["verified"] for c in result["citations"])
        deltas = [e["data"]["text"] for e in answer["_events"] if e["event"] == "delta"]
        assert len(deltas) >= 1  # the offline runtime streams too, a line at a time
        assert "".join(deltas) == result["answer_markdown"]
        summary = client.call(
            "page.summarize",
            {"url": "https://tides.test/t", "html": ARTICLE, "provider": "offline"},
        )
        assert summary["result"]["status"] == "ok"
        assert all(c["verified"] for c in summary["result"]["citations"])
        history = client.call("chat.history", {})
        roles = [e["role"] for e in history["result"]["events"]]
        assert roles == ["user", "assistant", "user", "assistant"]
        unknown = client.call("chat.ask", {"question": "x?", "provider": "nope"})
        assert unknown["error"]["code"] == "bad_request"
        assert "laika models add" in unknown["error"]["message"]
    finally:
        host.kill()
    assert client.checked >= {"chat.ask", "chat.history", "page.summarize"}


@pytest.mark.slow  # > 3 s with the cores busy
def test_a_model_answer_streams_deltas_then_the_verified_result(tmp_path: Path) -> None:
    reply = json.dumps(
        {
            "assistant": {"markdown": "The moon pulls the oceans [1]."},
            "citations": [{"doc_id": "PLACEHOLDER", "quote": "the moon pulls the oceans"}],
        }
    )
    host = HostProcess(tmp_path)
    client = Client(host)
    server = None
    try:
        saved = client.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
        source_id = saved["result"]["source"]["id"]
        text = reply.replace("PLACEHOLDER", f"src:{source_id}")
        server = ProviderServer([Reply(chunks=openai_sse([text[:20], text[20:]]))])
        save_providers(
            [ProviderConfig(id="rec", kind="openai_compatible", model="m", base_url=server.url)],
            tmp_path / "providers.json",
        )
        answer = client.call("chat.ask", {"question": "What does the moon do?", "provider": "rec"})
    finally:
        host.kill()
        if server is not None:
            server.close()
    assert answer["ok"], answer
    deltas = [e["data"]["text"] for e in answer["_events"] if e["event"] == "delta"]
    assert "".join(deltas) == text
    result = answer["result"]
    assert result["provider"] == "rec"
    assert result["answer_markdown"] == "The moon pulls the oceans [1]."
    assert [c["verified"] for c in result["citations"]] == [True]


@pytest.mark.slow  # > 3 s with the cores busy
def test_model_supplied_urls_reach_no_frame_and_no_history(tmp_path: Path) -> None:
    """Hostile citation URLs: every `url`/`locator` in every frame the extension receives
    (events, result, chat.history) is the stored source's or null."""
    hostile = ["javascript:alert(1)", "data:text/html,<b>x</b>", "https://evil.test/x"]
    host = HostProcess(tmp_path)
    client = Client(host)
    server = None
    try:
        saved = client.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
        doc_id = f"src:{saved['result']['source']['id']}"
        citations = [
            {"doc_id": doc_id, "quote": "the moon pulls the oceans", "url": hostile[0]},
            {"doc_id": doc_id, "quote": "the moon pushes the oceans", "url": hostile[1]},
            {"doc_id": "src:elsewhere", "quote": "anything", "url": hostile[2]},
        ]
        reply = json.dumps({"assistant": {"markdown": "The moon [1]."}, "citations": citations})
        server = ProviderServer([Reply(chunks=openai_sse([reply[:50], reply[50:]]))])
        save_providers(
            [ProviderConfig(id="rec", kind="openai_compatible", model="m", base_url=server.url)],
            tmp_path / "providers.json",
        )
        answer = client.call("chat.ask", {"question": "What does the moon do?", "provider": "rec"})
        history = client.call("chat.history", {})
    finally:
        host.kill()
        if server is not None:
            server.close()
    assert answer["ok"], answer
    verified = {c["quote"]: c["verified"] for c in answer["result"]["citations"]}
    assert verified == {
        "the moon pulls the oceans": True,
        "the moon pushes the oceans": False,
        "anything": False,
    }
    frames = [*answer["_events"], answer["result"], history["result"]]
    links = link_values(frames)
    assert links
    assert all(link is None or link.startswith("https://tides.test/t") for link in links)
    assert not any(url in json.dumps(frames[-2:]) for url in hostile)


def link_values(value: object) -> list[str | None]:
    if isinstance(value, dict):
        own = [v for k, v in value.items() if k in ("url", "locator", "href", "link")]
        return own + [u for v in value.values() for u in link_values(v)]
    if isinstance(value, list):
        return [u for item in value for u in link_values(item)]
    return []


@pytest.mark.slow  # > 3 s with the cores busy
def test_a_reply_over_the_bound_is_answered_and_saved_as_partial(tmp_path: Path) -> None:
    """250,000 characters of prose: the host answers (the frames stay well-formed), keeps the
    answer up to the bound with its note, and chat.history shows the turn as partial."""
    reply = "The moon pulls the oceans. " * 9_300
    host = HostProcess(tmp_path)
    client = Client(host)
    server = ProviderServer([Reply(chunks=openai_sse([reply[:100_000], reply[100_000:]]))])
    try:
        client.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
        save_providers(
            [ProviderConfig(id="rec", kind="openai_compatible", model="m", base_url=server.url)],
            tmp_path / "providers.json",
        )
        answer = client.call("chat.ask", {"question": "What does the moon do?", "provider": "rec"})
        history = client.call("chat.history", {})
        alive = client.call("host.ping", {})
    finally:
        host.kill()
        server.close()
    assert answer["ok"], answer
    result = answer["result"]
    assert result["status"] == "partial"
    assert len(result["answer_markdown"]) == 200_000
    assert result["answer_markdown"].endswith("longer than 200000 characters.]*")
    [_, saved] = history["result"]["events"]
    assert saved["markdown"] == result["answer_markdown"]
    assert saved["model"] == {"provider": "rec", "model": "m", "status": "partial"}
    assert alive["ok"]
    assert not host.malformed


@pytest.mark.slow  # > 3 s with the cores busy
def test_answer_html_links_verified_markers_and_flags_the_rest(tmp_path: Path) -> None:
    """A real host: each citation gets its source's title and a state, `answer_html` links
    the verified marker to its `#:~:text=` locator and flags the others, in the reply and in
    chat.history."""
    host = HostProcess(tmp_path)
    client = Client(host)
    server = None
    try:
        saved = client.call("sources.save_page", {"url": "https://tides.test/t", "html": ARTICLE})
        doc_id = f"src:{saved['result']['source']['id']}"
        citations = [
            {"doc_id": doc_id, "quote": "the moon pulls the oceans"},
            {"doc_id": doc_id, "quote": "the moon pushes the oceans"},
            {"doc_id": "src:elsewhere", "quote": "anything"},
        ]
        markdown = "The moon [1], not [2], nor [3]."
        reply = json.dumps({"assistant": {"markdown": markdown}, "citations": citations})
        server = ProviderServer([Reply(chunks=openai_sse([reply]))])
        save_providers(
            [ProviderConfig(id="rec", kind="openai_compatible", model="m", base_url=server.url)],
            tmp_path / "providers.json",
        )
        answer = client.call("chat.ask", {"question": "What does the moon do?", "provider": "rec"})
        offline = client.call(
            "chat.ask", {"question": "Why does high tide come twice a day?", "provider": "offline"}
        )
        history = client.call("chat.history", {})
    finally:
        host.kill()
        if server is not None:
            server.close()
    result = answer["result"]
    assert [c["state"] for c in result["citations"]] == ["verified", "unverified", "rejected"]
    title = saved["result"]["source"]["title"]
    assert [c["title"] for c in result["citations"]] == [title, title, None]
    locator = result["citations"][0]["locator"]
    assert "#:~:text=" in locator
    expected = (
        f'<p>The moon <a class="citation" href="{html.escape(locator)}" '
        'rel="noopener noreferrer nofollow ugc">[1]</a>, not '
        '<span class="citation-unverified">[2]</span>, nor '
        '<span class="citation-unverified">[3]</span>.</p>\n'
    )
    assert result["answer_html"] == expected
    offline_html = offline["result"]["answer_html"]
    assert offline_html.count('class="citation"') == len(offline["result"]["citations"]) > 0
    answers = [e for e in history["result"]["events"] if e["role"] == "assistant"]
    assert answers[0]["answer_html"] == expected
    assert answers[1]["answer_html"] == offline_html
    assert all("answer_html" not in e for e in history["result"]["events"] if e["role"] == "user")


@pytest.mark.slow  # > 3 s with the cores busy
def test_page_summarize_takes_the_capture_fields_and_answers_the_typed_question(
    tmp_path: Path,
) -> None:
    """What the extension's capture sends (lang, canonical_url, mode, title) is taken and
    kept on the stored source; a typed question is answered from this page, cited to the
    stored source at the page's own URL; a blank one summarizes."""
    page = {
        "url": "https://tides.test/t?ref=feed",
        "title": "Tide tables",
        "html": ARTICLE,
        "lang": "en-GB",
        "canonical_url": "https://www.tides.test/t",
        "mode": "auto",
        "collection": "Harbour",
    }
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        asked = client.call("page.summarize", {**page, "question": "Who reads the tide tables?"})
        summary = client.call("page.summarize", {**page, "question": "   "})
        history = client.call("chat.history", {"collection": "Harbour"})
        listed = client.call("sources.list", {"collection": "Harbour"})
        source_id = listed["result"]["sources"][0]["id"]
        detail = client.call("sources.get", {"source_id": source_id})
    finally:
        host.kill()
    assert asked["ok"], asked
    result = asked["result"]
    assert result["status"] == "ok", result
    assert "Sailors read them" in result["answer_markdown"], result["answer_markdown"]
    assert result["citations"], result
    for citation in result["citations"]:
        assert citation["verified"], citation
        assert citation["source_id"] == source_id
        assert citation["url"].startswith("https://tides.test/t")
        assert citation["locator"].startswith(citation["url"].split("#")[0] + "#:~:text=")
    assert summary["ok"], summary
    assert summary["result"]["citations"]
    questions = [e["markdown"] for e in history["result"]["events"] if e["role"] == "user"]
    assert questions == ["Who reads the tide tables?", "Summarize: Tide tables"]
    assert len(listed["result"]["sources"]) == 1  # one page, stored once
    assert detail["result"]["provenance"]["language"] == "en-GB"
    assert detail["result"]["provenance"]["canonical_url"] == "https://www.tides.test/t"
    assert detail["result"]["normalized_url"] == "https://www.tides.test/t"
