"""Hypothesis strategies that generate valid LLMCP packets as plain JSON data."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from hypothesis import strategies as st

from laika_host.protocol import format_timestamp

ids = st.text(min_size=1, max_size=24)
texts = st.text(max_size=80)
timestamps = st.datetimes(timezones=st.just(UTC)).map(format_timestamp)
web_urls = st.from_regex(
    r"https?://[a-z0-9-]{1,15}(\.[a-z]{2,6})?(/[A-Za-z0-9._~%!$&'()*+,;=:@/-]{0,30})?(\?[a-z]=[0-9]{1,3})?",
    fullmatch=True,
)
source_urls = st.one_of(web_urls, st.from_regex(r"laika:source/src_[a-f0-9]{8}", fullmatch=True))
signals = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True), max_size=3)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), texts)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def _maybe(
    draw: st.DrawFn, target: dict[str, Any], key: str, strategy: st.SearchStrategy[Any]
) -> None:
    if draw(st.booleans()):
        target[key] = draw(strategy)


links = st.builds(
    lambda url, text, context: {
        "url": url,
        "text": text,
        **({"context": context} if context else {}),
    },
    web_urls,
    texts,
    st.none() | texts,
)


@st.composite
def summary_content(draw: st.DrawFn) -> dict[str, Any]:
    content = {
        "doc_type": "web.observation.summary.v1",
        "url": draw(web_urls),
        "title": draw(texts),
    }
    _maybe(draw, content, "captured_at", timestamps)
    content["markdown"] = draw(texts)
    _maybe(draw, content, "extracted_links", st.lists(links, max_size=3))
    _maybe(draw, content, "signals", signals)
    _maybe(
        draw,
        content,
        "items",
        st.lists(st.dictionaries(st.text(max_size=8), json_values, max_size=3), max_size=2),
    )
    return content


@st.composite
def chunk_content(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(1, 50))
    return {
        "doc_type": "web.observation.chunk.v1",
        "url": draw(web_urls),
        "title": draw(texts),
        "chunk_index": draw(st.integers(1, count)),
        "chunk_count": count,
        "markdown": draw(texts),
    }


@st.composite
def index_content(draw: st.DrawFn) -> dict[str, Any]:
    entries = []
    for _ in range(draw(st.integers(0, 3))):
        entry = {"source_id": draw(ids), "url": draw(source_urls), "title": draw(texts)}
        _maybe(draw, entry, "captured_at", timestamps)
        entries.append(entry)
    return {
        "doc_type": "collection.index.v1",
        "collection_id": draw(ids),
        "title": draw(texts),
        "sources": entries,
    }


@st.composite
def source_content(draw: st.DrawFn) -> dict[str, Any]:
    content = {
        "doc_type": "collection.source.v1",
        "collection_id": draw(ids),
        "source_id": draw(ids),
        "url": draw(source_urls),
        "title": draw(texts),
        "markdown": draw(texts),
    }
    _maybe(draw, content, "captured_at", timestamps)
    _maybe(draw, content, "extracted_links", st.lists(links, max_size=2))
    return content


CONTENTS = {
    "web.observation.summary.v1": summary_content(),
    "web.observation.chunk.v1": chunk_content(),
    "collection.index.v1": index_content(),
    "collection.source.v1": source_content(),
}


@st.composite
def documents(draw: st.DrawFn) -> list[dict[str, Any]]:
    kinds = draw(st.lists(st.sampled_from(sorted(CONTENTS)), max_size=4))
    out = []
    for number, kind in enumerate(kinds):
        document: dict[str, Any] = {
            "doc_id": f"doc:{number}:{draw(ids)}",
            "kind": kind,
            "trust": "untrusted",
        }
        _maybe(
            draw,
            document,
            "source",
            st.fixed_dictionaries(
                {}, optional={"browser": texts, "tab_id": st.one_of(texts, st.integers())}
            ),
        )
        document["content"] = draw(CONTENTS[kind])
        out.append(document)
    return out


@st.composite
def envelope(draw: st.DrawFn, packet_type: str, roles: list[str]) -> dict[str, Any]:
    return {
        "protocol": {"name": "laika.llmcp", "version": 1},
        "id": draw(ids),
        "type": packet_type,
        "created_at": draw(timestamps),
        "conversation": {"id": draw(ids), "turn": draw(st.integers(1, 10**6))},
        "sender": {"role": draw(st.sampled_from(roles))},
    }


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    packet = draw(envelope("request", ["user", "agent", "assistant", "tool"]))
    inputs = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "user_message": st.fixed_dictionaries({"id": ids, "text": texts}),
                "task": st.fixed_dictionaries(
                    {
                        "name": st.sampled_from(
                            ["web.summarize", "web.answer", "web.extract", "transform.run"]
                        )
                    },
                    optional={
                        "args": st.dictionaries(st.text(max_size=8), json_values, max_size=3)
                    },
                ),
            },
        ).filter(bool)
    )
    packet["input"] = inputs
    _maybe(draw, packet, "context", documents().map(lambda docs: {"documents": docs}))
    _maybe(
        draw, packet, "output", st.sampled_from([{}, {"format": "json"}, {"format": "markdown"}])
    )
    return packet


inline_leaves = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, texts),
    st.builds(lambda t: {"type": "inline_code", "text": t}, texts),
    st.just({"type": "line_break"}),
)
inlines = st.recursive(
    inline_leaves,
    lambda children: st.one_of(
        st.builds(lambda c: {"type": "strong", "children": c}, st.lists(children, max_size=3)),
        st.builds(lambda c: {"type": "emphasis", "children": c}, st.lists(children, max_size=3)),
        st.builds(
            lambda h, c: {"type": "link", "href": h, "children": c},
            web_urls | st.just("mailto:a@example.com"),
            st.lists(children, max_size=2),
        ),
    ),
    max_leaves=6,
)
inline_lists = st.lists(inlines, max_size=4)
leaf_blocks = st.one_of(
    st.builds(lambda c: {"type": "paragraph", "children": c}, inline_lists),
    st.builds(
        lambda level, c: {"type": "heading", "level": level, "children": c},
        st.integers(1, 6),
        inline_lists,
    ),
    st.builds(
        lambda lang, text: {
            "type": "code_block",
            "text": text,
            **({"language": lang} if lang else {}),
        },
        st.none() | st.from_regex(r"[a-z0-9+#-]{1,10}", fullmatch=True),
        texts,
    ),
    st.just({"type": "thematic_break"}),
    st.builds(
        lambda rows: {
            "type": "table",
            "rows": [
                {"type": "table_row", "cells": [{"type": "table_cell", "children": c} for c in row]}
                for row in rows
            ],
        },
        st.lists(st.lists(inline_lists, min_size=1, max_size=3), min_size=1, max_size=3),
    ),
)
blocks = st.recursive(
    leaf_blocks,
    lambda children: st.one_of(
        st.builds(lambda c: {"type": "blockquote", "children": c}, st.lists(children, max_size=3)),
        st.builds(
            lambda ordered, items: {
                "type": "list",
                "ordered": ordered,
                "items": [{"type": "list_item", "children": i} for i in items],
            },
            st.booleans(),
            st.lists(st.lists(children | inlines, max_size=3), max_size=3),
        ),
    ),
    max_leaves=8,
)
render_documents = st.builds(lambda c: {"type": "doc", "children": c}, st.lists(blocks, max_size=5))


@st.composite
def citations(draw: st.DrawFn) -> dict[str, Any]:
    which = draw(st.sampled_from(["source_id", "doc_id", "both"]))
    citation: dict[str, Any] = {}
    if which in ("source_id", "both"):
        citation["source_id"] = draw(ids)
    if which in ("doc_id", "both"):
        citation["doc_id"] = draw(ids)
    citation["url"] = draw(source_urls)
    citation["quote"] = draw(st.text(min_size=1, max_size=60))
    _maybe(
        draw,
        citation,
        "locator",
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["text_fragment", "section_heading"]),
                "value": st.text(min_size=1, max_size=30),
            }
        ),
    )
    _maybe(draw, citation, "confidence", st.floats(0, 1))
    return citation


tool_calls = st.one_of(
    st.builds(lambda h: {"name": "browser.click", "arguments": {"handleId": h}}, ids),
    st.builds(
        lambda h, t: {"name": "browser.type", "arguments": {"handleId": h, "text": t}}, ids, texts
    ),
    st.builds(
        lambda d: {"name": "browser.scroll", "arguments": {"deltaY": d}},
        st.floats(-1e6, 1e6) | st.integers(-(10**6), 10**6),
    ),
    st.builds(lambda u: {"name": "browser.navigate", "arguments": {"url": u}}, web_urls),
    st.sampled_from(
        [
            {"name": "browser.back"},
            {"name": "browser.refresh", "arguments": {}},
            {"name": "transform.list_types", "arguments": {}},
        ]
    ),
    st.builds(
        lambda q, n: {"name": "search", "arguments": {"query": q, "newTab": n}}, ids, st.booleans()
    ),
    st.builds(
        lambda t, m, tags: {
            "name": "artifact.save",
            "arguments": {"title": t, "markdown": m, "tags": tags},
        },
        ids,
        texts,
        st.lists(ids, max_size=3),
    ),
    st.builds(
        lambda c, u, n: {
            "name": "collection.add_sources",
            "arguments": {
                "collectionId": c,
                "sources": [{"type": "url", "url": u}, {"type": "note", "text": n}],
            },
        },
        ids,
        web_urls,
        ids,
    ),
    st.builds(
        lambda c, p: {
            "name": "integration.invoke",
            "arguments": {"integration": "notes", "operation": "append", "payload": p},
        },
        ids,
        st.dictionaries(st.text(max_size=8), json_values, max_size=3),
    ),
    st.builds(
        lambda c, cfg: {
            "name": "transform.run",
            "arguments": {"collectionId": c, "type": "brief", "config": cfg},
        },
        ids,
        st.dictionaries(st.text(max_size=8), json_values, max_size=3),
    ),
)


@st.composite
def responses(draw: st.DrawFn) -> dict[str, Any]:
    packet = draw(envelope("response", ["assistant", "agent", "tool", "user"]))
    packet["in_reply_to"] = {"request_id": draw(ids)}
    assistant: dict[str, Any] = {}
    _maybe(draw, assistant, "title", texts)
    content = draw(st.sampled_from(["render", "markdown", "both"]))
    if content in ("render", "both"):
        assistant["render"] = draw(render_documents)
    if content in ("markdown", "both"):
        assistant["markdown"] = draw(texts)
    assistant["citations"] = draw(st.lists(citations(), max_size=3))
    packet["assistant"] = assistant
    _maybe(draw, packet, "tool_calls", st.lists(tool_calls, max_size=3))
    return packet


packets = st.one_of(requests(), responses())
