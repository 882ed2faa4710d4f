"""`parse_response` against a table of malformed and tricky model replies.

Each row is one reply and its documented expectation: the outcome, the exact repairs (in the
order applied), text the Markdown must (not) contain, and the JSON paths of what was dropped.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.agent import parse
from laika_host.agent.parse import (
    DEFAULT_MAX_CHARS,
    OUTCOMES,
    REPAIRS,
    Outcome,
    ParsedResponse,
    parse_markdown_reply,
    parse_response,
)

from support import SPEC_FIXTURES

ANSWER = "## Summary\n\nThe launch is expected in Q2."
CITATION = {
    "source_id": "src_123",
    "url": "https://example.com/story",
    "quote": "The launch is expected in Q2.",
    "locator": {"type": "text_fragment", "value": "launch is expected in Q2"},
    "confidence": 0.72,
}
RENDER = {
    "type": "doc",
    "children": [
        {"type": "heading", "level": 2, "children": [{"type": "text", "text": "Rendered"}]},
        {"type": "paragraph", "children": [{"type": "text", "text": "From the tree."}]},
    ],
}
CLICK = {"name": "browser.click", "arguments": {"handleId": "laika-1"}}


def envelope() -> dict[str, Any]:
    return {
        "protocol": {"name": "laika.llmcp", "version": 1},
        "id": "res-1",
        "type": "response",
        "created_at": "2026-01-28T12:34:57.123Z",
        "conversation": {"id": "c-1", "turn": 1},
        "sender": {"role": "assistant"},
        "in_reply_to": {"request_id": "req-1"},
    }


def packet(assistant: Any = None, **top: Any) -> dict[str, Any]:
    """A valid response (markdown answer, one citation) with parts replaced by `top`."""
    if assistant is None:
        assistant = {"title": "Summary", "markdown": ANSWER, "citations": [CITATION]}
    data = {**envelope(), "assistant": assistant, "tool_calls": []}
    data.update(top)
    return {key: value for key, value in data.items() if value is not DROP}


def answer(**fields: Any) -> dict[str, Any]:
    """An assistant object: markdown and one citation, with fields replaced or dropped."""
    data = {"markdown": ANSWER, "citations": [CITATION], **fields}
    return {key: value for key, value in data.items() if value is not DROP}


DROP = object()
"""Marks a key to leave out of `packet` / `answer`."""


def dumps(data: Any, indent: int | None = None) -> str:
    return json.dumps(data, indent=indent)


VALID = dumps(packet(), indent=2)
SPEC_EXAMPLE = (SPEC_FIXTURES / "summarize_response.json").read_text(encoding="utf-8")
SPEC_SCHEMA_EXAMPLE = (SPEC_FIXTURES / "response_schema.json").read_text(encoding="utf-8")
RENDERED = dumps(packet(answer(markdown=DROP, render=RENDER)))
WITH_TOOL_CALL = dumps(packet(tool_calls=[CLICK]))
CUT_IN_ANSWER = VALID[: VALID.index("expected in Q2") + len("expected")]
CUT_IN_CITATIONS = VALID[: VALID.index('"quote"')]
MARKER = "Output truncated"


@dataclass(frozen=True)
class Case:
    """One model reply and what `parse_response` must make of it (`why` says why)."""

    id: str
    text: str
    outcome: Outcome
    why: str
    repairs: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    citations: int = 0
    tool_calls: int = 0
    warns: tuple[str, ...] = ()
    quiet: bool = False
    request_id: str | None = "req-1"
    known_tools: frozenset[str] | None = None
    max_chars: int = DEFAULT_MAX_CHARS


CASES: list[Case] = [
    # --- well-formed --------------------------------------------------------------------
    Case(
        "valid_full_response",
        VALID,
        "parsed",
        "strict JSON, valid: nothing to do",
        contains=(ANSWER,),
        citations=1,
        quiet=True,
    ),
    Case(
        "spec_example_response",
        SPEC_EXAMPLE,
        "parsed",
        "the spec's summarize example (markdown-only is the spec's lenient path)",
        contains=("## Summary",),
        citations=1,
    ),
    Case(
        "spec_schema_example",
        SPEC_SCHEMA_EXAMPLE,
        "parsed",
        "render-only spec example",
        contains=("Markdown content",),
        citations=1,
        request_id="uuid",
    ),
    Case(
        "spec_schema_example_other_request",
        SPEC_SCHEMA_EXAMPLE,
        "repaired",
        "in_reply_to names another request: the host knows which one it sent",
        repairs=("corrected_in_reply_to",),
        contains=("Markdown content",),
        citations=1,
    ),
    Case(
        "no_request_id_given",
        SPEC_SCHEMA_EXAMPLE,
        "parsed",
        "without a request id the model's in_reply_to is not second-guessed",
        citations=1,
        request_id=None,
    ),
    Case(
        "windows_newlines",
        VALID.replace("\n", "\r\n"),
        "parsed",
        "CRLF between JSON tokens is whitespace",
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "markdown_without_render",
        dumps(packet(answer(citations=[]))),
        "parsed",
        "assistant.markdown alone is valid (content path markdown_fallback)",
        contains=(ANSWER,),
    ),
    Case(
        "render_without_markdown",
        dumps(packet(answer(markdown=DROP, render=RENDER))),
        "parsed",
        "the render tree is turned into Markdown",
        contains=("## Rendered", "From the tree."),
        citations=1,
    ),
    Case(
        "render_and_markdown",
        dumps(packet(answer(render=RENDER))),
        "parsed",
        "both present: render is canonical in JSON mode",
        contains=("## Rendered",),
        absent=("expected in Q2",),
        citations=1,
    ),
    Case(
        "render_null_markdown",
        dumps(packet(answer(render=None))),
        "parsed",
        "render: null is absent",
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "citation_to_unknown_doc",
        dumps(packet(answer(citations=[{**CITATION, "source_id": "src_nowhere"}]))),
        "parsed",
        "kept: checking citations against sources happens later (verify)",
        citations=1,
    ),
    Case(
        "valid_tool_call",
        dumps(packet(tool_calls=[CLICK])),
        "parsed",
        "a known tool with valid arguments is kept",
        contains=(ANSWER,),
        citations=1,
        tool_calls=1,
        known_tools=frozenset({"browser.click"}),
    ),
    Case(
        "raw_html_in_markdown",
        dumps(packet(answer(markdown="Hi <script>alert(1)</script> <b>x</b>"))),
        "parsed",
        "HTML kept as text for the escaping renderer, but noted",
        contains=("<script>alert(1)</script>",),
        citations=1,
        warns=("raw HTML",),
    ),
    Case(
        "html_only_inside_code",
        dumps(packet(answer(markdown="Use `<div>` here."))),
        "parsed",
        "tags inside code spans are not raw HTML",
        contains=("`<div>`",),
        citations=1,
        quiet=True,
    ),
    # --- text around the JSON -----------------------------------------------------------
    Case(
        "fenced_json",
        f"```json\n{VALID}\n```",
        "repaired",
        "the usual fence",
        repairs=("stripped_code_fence",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "fenced_no_language",
        f"```\n{VALID}\n```\n",
        "repaired",
        "fence without a language",
        repairs=("stripped_code_fence",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "fenced_crlf",
        f"```json\r\n{VALID}\r\n```\r\n",
        "repaired",
        "fence with CRLF lines",
        repairs=("stripped_code_fence",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "prose_before_and_after",
        f"Sure! Here is the JSON:\n{VALID}\nHope this helps.",
        "repaired",
        "the first balanced object is taken from the prose",
        repairs=("extracted_json_from_prose",),
        contains=(ANSWER,),
        absent=("Sure!",),
        citations=1,
        warns=("ignored",),
    ),
    Case(
        "prose_around_fence",
        f"Here you go:\n```json\n{VALID}\n```\nAnything else?",
        "repaired",
        "a fenced block inside prose",
        repairs=("stripped_code_fence", "extracted_json_from_prose"),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "two_objects_in_a_row",
        VALID + dumps(packet(answer(markdown="Second answer"))),
        "repaired",
        "the first object wins; the second is ignored (still in raw)",
        repairs=("extracted_json_from_prose",),
        contains=(ANSWER,),
        absent=("Second answer",),
        citations=1,
    ),
    Case(
        "think_block_closed",
        f"<think>\nThe user wants a summary.\n</think>\n\n{VALID}",
        "repaired",
        "reasoning the runtime let through",
        repairs=("stripped_think_block",),
        contains=(ANSWER,),
        absent=("user wants",),
        citations=1,
    ),
    Case(
        "think_block_unclosed_then_json",
        f"<think>\nI should answer {{briefly}}.\n{VALID}",
        "repaired",
        "unclosed: reasoning ends where a line opens JSON",
        repairs=("stripped_think_block",),
        contains=(ANSWER,),
        citations=1,
        warns=("unclosed <think>",),
    ),
    Case(
        "think_block_unclosed_only",
        "<think>\nLet me think about the page",
        "error",
        "only reasoning, cut off: no answer to show",
        repairs=("stripped_think_block",),
        warns=("unclosed <think>",),
    ),
    Case(
        "think_close_tag_only",
        f"The template opened the block.\n</think>\n{VALID}",
        "repaired",
        "Qwen3 style: only the closing tag is in the output",
        repairs=("stripped_think_block",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "think_then_fence",
        f"<think>ok</think>\n```json\n{VALID}\n```",
        "repaired",
        "both wrappers",
        repairs=("stripped_think_block", "stripped_code_fence"),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "bom_at_start",
        "\ufeff" + VALID,
        "repaired",
        "json.loads refuses a BOM in text",
        repairs=("stripped_bom",),
        contains=(ANSWER,),
        citations=1,
    ),
    # --- JSON syntax --------------------------------------------------------------------
    Case(
        "trailing_commas",
        VALID.replace('"tool_calls": []', '"tool_calls": [],').replace("0.72", "0.72,"),
        "repaired",
        "decided: removed, the meaning is unambiguous",
        repairs=("removed_trailing_commas",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "raw_newline_in_string",
        VALID.replace("\\n\\n", "\n\n"),
        "repaired",
        "literal newlines inside a JSON string are escaped",
        repairs=("escaped_control_characters",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "json_encoded_as_string",
        json.dumps(VALID),
        "repaired",
        "the whole response JSON-encoded as a string",
        repairs=("decoded_json_string",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "array_of_responses",
        f"[{VALID}]",
        "repaired",
        "the first item is the response",
        repairs=("unwrapped_json_array",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "array_of_strings",
        '["a", "b"]',
        "markdown_fallback",
        "JSON, but not a response",
        contains=('["a", "b"]',),
        warns=("array",),
    ),
    Case("json_number", "42", "markdown_fallback", "JSON, but not a response", contains=("42",)),
    Case(
        "duplicate_keys",
        VALID.replace('"title": "Summary"', '"title": "A", "title": "B"'),
        "markdown_fallback",
        "refused: parsers disagree on which key wins",
        contains=('"title": "A"',),
        warns=("not JSON",),
    ),
    Case(
        "nan",
        VALID.replace("0.72", "NaN"),
        "markdown_fallback",
        "NaN is not JSON",
        contains=("NaN",),
        warns=("not JSON",),
    ),
    Case(
        "python_dict",
        "{'assistant': {'markdown': 'Hi'}}",
        "markdown_fallback",
        "single quotes are not JSON; not guessed at",
        contains=("{'assistant'",),
    ),
    Case(
        "huge_integer",
        '{"assistant": {"markdown": "x"}, "n": ' + "9" * 5000 + "}",
        "markdown_fallback",
        "json.loads raises ValueError past 4300 digits: caught",
        contains=("99999",),
    ),
    Case(
        "deep_nesting",
        "[" * 50_000,
        "markdown_fallback",
        "too deep for the parser: caught",
        contains=("[[[",),
    ),
    Case(
        "many_open_braces",
        "{" * 50_000,
        "markdown_fallback",
        "no candidate closes: bounded search, no salvage key",
        contains=("{{{",),
    ),
    # --- cut-off output -----------------------------------------------------------------
    Case(
        "truncated_mid_string",
        CUT_IN_ANSWER,
        "markdown_fallback",
        "max_tokens mid-answer: the partial markdown string is shown",
        repairs=("salvaged_partial_markdown",),
        contains=("The launch is expected",),
        absent=('"protocol"',),
        warns=("cut off",),
    ),
    Case(
        "truncated_mid_object",
        CUT_IN_CITATIONS,
        "markdown_fallback",
        "cut inside citations: the answer string was complete; citations dropped",
        repairs=("salvaged_partial_markdown",),
        contains=(ANSWER,),
    ),
    Case(
        "truncated_render_only",
        RENDERED[: RENDERED.index('"children"')],
        "markdown_fallback",
        "nothing to salvage: the cut JSON text is shown as is",
        contains=('"render"',),
    ),
    Case(
        "truncated_fence",
        f"```json\n{CUT_IN_ANSWER}",
        "markdown_fallback",
        "fence never closed (cut off)",
        repairs=("stripped_code_fence", "salvaged_partial_markdown"),
        contains=("The launch is expected",),
    ),
    Case(
        "truncated_tool_call",
        dumps(
            packet(
                tool_calls=[
                    {"name": "browser.navigate", "arguments": {"url": "https://example.com/x"}}
                ]
            )
        )[:-20],
        "markdown_fallback",
        "a cut tool call is never proposed",
        repairs=("salvaged_partial_markdown",),
        contains=(ANSWER,),
    ),
    Case(
        "huge_output_over_cap",
        dumps(packet(answer(markdown="word " * 50_000))),
        "markdown_fallback",
        "cut at the cap before parsing, then salvaged",
        repairs=("truncated_output", "salvaged_partial_markdown"),
        contains=("word word", MARKER),
        max_chars=100_000,
    ),
    Case(
        "prose_over_cap",
        "A long answer. " * 20,
        "markdown_fallback",
        "cut prose, marked",
        repairs=("truncated_output",),
        contains=("A long answer.", MARKER),
        max_chars=100,
    ),
    Case(
        "valid_then_padding_over_cap",
        VALID + " " * 500,
        "repaired",
        "the cut only removed padding: valid, but the cut is still recorded",
        repairs=("truncated_output",),
        contains=(ANSWER, MARKER),
        citations=1,
        max_chars=len(VALID) + 10,
    ),
    Case(
        "lone_surrogate_escapes",
        '{"assistant": {"markdown": "Tides \\ud800 rise \\ud83d\\ude00"}}',
        "repaired",
        "an escape decoding to a lone surrogate cannot be stored: replaced; a pair is kept",
        repairs=("replaced_lone_surrogates", "filled_envelope"),
        contains=("Tides \ufffd rise \U0001f600",),
    ),
    Case(
        "raw_lone_surrogate",
        "Tides \udc00 rise",
        "markdown_fallback",
        "a lone surrogate in the text itself",
        repairs=("replaced_lone_surrogates",),
        contains=("Tides \ufffd rise",),
    ),
    Case(
        "nested_too_deep",
        "[" * 50_000 + '"deep"' + "]" * 50_000,
        "markdown_fallback",
        "not parsed past 100 levels (no RecursionError anywhere later): kept as text",
        contains=("[[[",),
        warns=("deeper than 100 levels",),
    ),
    Case(
        "answer_nested_too_deep",
        dumps({"assistant": {"markdown": ANSWER}, "extra": "DEEP"}).replace(
            '"DEEP"', "[" * 200 + "]" * 200
        ),
        "markdown_fallback",
        "a valid answer with a key nested 200 deep is not read as JSON at all",
        contains=("## Summary",),
        warns=("deeper than 100 levels",),
    ),
    # --- missing envelope and misplaced parts -------------------------------------------
    Case(
        "bare_assistant_and_citations",
        dumps({"assistant": {"markdown": ANSWER}, "citations": [CITATION]}),
        "repaired",
        "no envelope: host fills it; top-level citations move into assistant",
        repairs=("moved_citations_into_assistant", "filled_envelope"),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "bare_content_only",
        dumps({"markdown": ANSWER, "citations": [CITATION]}),
        "repaired",
        "only the assistant part: wrapped, envelope filled",
        repairs=("filled_envelope",),
        contains=(ANSWER,),
        citations=1,
    ),
    Case(
        "assistant_is_a_string",
        dumps({"assistant": ANSWER}),
        "repaired",
        "a string assistant is its markdown",
        repairs=("wrapped_assistant_string", "filled_envelope"),
        contains=(ANSWER,),
    ),
    Case(
        "invalid_envelope_fields",
        dumps(packet(created_at="2026-01-28T12:34:57", protocol={"name": "x", "version": 2})),
        "repaired",
        "the envelope is the host's to know: wrong values replaced",
        repairs=("replaced_invalid_envelope_fields",),
        contains=(ANSWER,),
        dropped=("protocol", "created_at"),
        citations=1,
    ),
    Case(
        "extra_top_level_key",
        dumps(packet(confidence=0.9, notes="x")),
        "repaired",
        "keys outside the schema are dropped",
        repairs=("dropped_unknown_keys",),
        contains=(ANSWER,),
        dropped=("confidence", "notes"),
        citations=1,
    ),
    Case(
        "extra_assistant_key",
        dumps(packet(answer(summary="short"))),
        "repaired",
        "unknown assistant key dropped",
        repairs=("dropped_unknown_keys",),
        contains=(ANSWER,),
        dropped=("assistant.summary",),
        citations=1,
    ),
    Case(
        "assistant_without_answer",
        dumps(packet({"title": "Only a title"})),
        "markdown_fallback",
        "JSON with no render or markdown: the text is all there is",
        contains=('"Only a title"',),
        warns=("no usable render or markdown",),
    ),
    Case(
        "json_without_assistant",
        dumps({"answer": "42"}),
        "markdown_fallback",
        "an unknown shape is not guessed at",
        contains=('"answer"',),
    ),
    Case(
        "markdown_with_json_code_block",
        'Config:\n```json\n{"a": 1}\n```\nDone.',
        "markdown_fallback",
        "a Markdown answer that shows JSON stays Markdown (fence kept)",
        contains=("```json", "Done."),
    ),
    Case(
        "markdown_answer",
        "## Answer\r\n\r\nThe launch is in Q2 [1].",
        "markdown_fallback",
        "Markdown mode output; CRLF normalized",
        contains=("## Answer\n\nThe launch",),
    ),
    Case(
        "markdown_wrapped_in_fence",
        "```markdown\n# Title\n\n```python\nx = 1\n```\n```",
        "markdown_fallback",
        "the outer fence goes, the inner code block stays",
        repairs=("stripped_code_fence",),
        contains=("# Title", "```python\nx = 1\n```"),
        absent=("```markdown",),
    ),
    # --- wrong types and invalid items --------------------------------------------------
    Case(
        "render_invalid_markdown_present",
        dumps(packet(answer(render={"type": "doc", "children": [{"type": "html"}]}))),
        "repaired",
        "an invalid tree gives way to the markdown",
        repairs=("render_missing_used_markdown",),
        contains=(ANSWER,),
        dropped=("assistant.render",),
        citations=1,
    ),
    Case(
        "render_partly_invalid",
        dumps(
            packet(
                answer(
                    markdown=DROP,
                    render={
                        **RENDER,
                        "children": [
                            *RENDER["children"],
                            {
                                "type": "paragraph",
                                "children": [
                                    {"type": "link", "href": "javascript:alert(1)", "children": []}
                                ],
                            },
                        ],
                    },
                )
            )
        ),
        "repaired",
        "no markdown: the valid blocks of the tree are kept",
        repairs=("dropped_invalid_render_blocks",),
        contains=("From the tree.",),
        absent=("javascript",),
        dropped=("assistant.render.children[2]",),
        citations=1,
    ),
    Case(
        "render_wholly_invalid",
        dumps(packet(answer(markdown=DROP, render="# Title"))),
        "markdown_fallback",
        "no usable answer in the JSON: the text is shown",
        contains=('"render": "# Title"',),
    ),
    Case(
        "title_not_a_string",
        dumps(packet(answer(title=5))),
        "repaired",
        "an invalid optional field is dropped, the answer kept",
        repairs=("dropped_invalid_fields",),
        contains=(ANSWER,),
        dropped=("assistant.title",),
        citations=1,
    ),
    Case(
        "markdown_not_a_string_render_valid",
        dumps(packet(answer(markdown=["a", "b"], render=RENDER))),
        "repaired",
        "the bad markdown goes, the tree answers",
        repairs=("dropped_invalid_fields",),
        contains=("From the tree.",),
        dropped=("assistant.markdown",),
        citations=1,
    ),
    Case(
        "citations_not_a_list",
        dumps(packet(answer(citations="src_123"))),
        "repaired",
        "the whole citations value is dropped",
        repairs=("dropped_invalid_citations",),
        contains=(ANSWER,),
        dropped=("assistant.citations",),
    ),
    Case(
        "confidence_as_string",
        dumps(packet(answer(citations=[{**CITATION, "confidence": "0.9"}]))),
        "repaired",
        "strict types: not coerced; the optional field goes, the citation stays",
        repairs=("dropped_invalid_fields",),
        contains=(ANSWER,),
        dropped=("assistant.citations[0].confidence",),
        citations=1,
    ),
    Case(
        "locator_wrong",
        dumps(packet(answer(citations=[{**CITATION, "locator": {"type": "page", "value": 3}}]))),
        "repaired",
        "a bad locator is dropped, the citation stays",
        repairs=("dropped_invalid_fields",),
        dropped=("assistant.citations[0].locator",),
        citations=1,
    ),
    Case(
        "invalid_citations_among_valid",
        dumps(
            packet(
                answer(
                    citations=[
                        CITATION,
                        {"source_id": "s", "url": "https://a.b"},
                        "src_1",
                        {"url": "https://a.b", "quote": "q"},
                    ]
                )
            )
        ),
        "repaired",
        "each bad citation dropped on its own (no quote, not an object, no id)",
        repairs=("dropped_invalid_citations",),
        dropped=("assistant.citations[1]", "assistant.citations[2]", "assistant.citations[3]"),
        citations=1,
    ),
    Case(
        "citation_extra_key",
        dumps(packet(answer(citations=[{**CITATION, "page": 4}]))),
        "repaired",
        "an unknown citation key is dropped, the citation kept",
        repairs=("dropped_unknown_keys",),
        dropped=("assistant.citations[0].page",),
        citations=1,
    ),
    Case(
        "unknown_tool",
        dumps(packet(tool_calls=[{"name": "browser.teleport", "arguments": {}}, CLICK])),
        "repaired",
        "not in the v1 catalog",
        repairs=("dropped_unknown_tool_calls",),
        dropped=("tool_calls[0]",),
        citations=1,
        tool_calls=1,
    ),
    Case(
        "tool_not_offered",
        dumps(packet(tool_calls=[CLICK])),
        "repaired",
        "valid v1 tool, but not one this request offered",
        repairs=("dropped_unknown_tool_calls",),
        dropped=("tool_calls[0]",),
        citations=1,
        known_tools=frozenset({"search"}),
    ),
    Case(
        "tool_bad_arguments",
        dumps(
            packet(
                tool_calls=[
                    {"name": "browser.click", "arguments": {"handle": "laika-1"}},
                    {"name": "browser.navigate", "arguments": {"url": "javascript:alert(1)"}},
                    {"arguments": {}},
                    CLICK,
                ]
            )
        ),
        "repaired",
        "tool calls are never edited: bad ones dropped whole",
        repairs=("dropped_invalid_tool_calls",),
        dropped=("tool_calls[0]", "tool_calls[1]", "tool_calls[2]"),
        citations=1,
        tool_calls=1,
    ),
    Case(
        "tool_calls_not_a_list",
        dumps(packet(tool_calls=CLICK)),
        "repaired",
        "a single object where an array belongs is dropped",
        repairs=("dropped_invalid_tool_calls",),
        dropped=("tool_calls",),
        citations=1,
    ),
    # --- more items than are ever read: the rest dropped unread, counted in a warning --------
    Case(
        "citations_past_the_cap",
        dumps(packet(answer(citations=[CITATION] * 40), citations=[{}] * 45_000)),
        "repaired",
        "the assistant's 40 come first, then 24 of the 45,000 empty ones at the top (dropped "
        "as invalid); the other 44,976 are never read",
        repairs=(
            "dropped_excess_citations",
            "moved_citations_into_assistant",
            "dropped_invalid_citations",
        ),
        dropped=tuple(f"assistant.citations[{i}]" for i in range(40, 64)),
        citations=40,
        warns=("the reply has 45040 citations; only the first 64 were read (44976 dropped)",),
    ),
    Case(
        "tool_calls_past_the_cap",
        dumps(packet(tool_calls=[CLICK] * 2_500)),
        "repaired",
        "32 are read (the tool loop records 32 and runs 8); the rest never reach the gate",
        repairs=("dropped_excess_tool_calls",),
        citations=1,
        tool_calls=32,
        warns=("the reply has 2500 tool calls; only the first 32 were read (2468 dropped)",),
    ),
    Case(
        "render_blocks_past_the_cap",
        dumps(
            packet(answer(markdown=DROP, render={**RENDER, "children": RENDER["children"] * 300}))
        ),
        "repaired",
        "the first 500 top-level blocks are the answer",
        repairs=("dropped_excess_render_blocks",),
        contains=("From the tree.",),
        citations=1,
        warns=("the reply has 600 top-level render blocks; only the first 500 were read",),
    ),
    # --- nothing there --------------------------------------------------------------------
    Case("empty_output", "", "error", "nothing to show"),
    Case("whitespace_only", " \n\t\r\n ", "error", "nothing to show"),
    Case("bom_only", "\ufeff", "error", "nothing after the BOM", repairs=("stripped_bom",)),
]


def run(case: Case) -> ParsedResponse:
    tools = set(case.known_tools) if case.known_tools is not None else None
    return parse_response(
        case.text, request_id=case.request_id, max_chars=case.max_chars, known_tools=tools
    )


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_reply(case: Case) -> None:
    result = run(case)
    assert result.outcome == case.outcome, result.warnings
    assert result.repairs == list(case.repairs)
    for text in case.contains:
        assert text in result.markdown
    for text in case.absent:
        assert text not in result.markdown
    assert [item.path for item in result.dropped] == list(case.dropped)
    assert len(result.citations) == case.citations
    assert len(result.tool_calls) == case.tool_calls
    for text in case.warns:
        assert any(text in warning for warning in result.warnings), result.warnings
    if case.quiet:
        assert result.warnings == []
    assert result.raw == case.text


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_outcome_invariants(case: Case) -> None:
    result = run(case)
    assert set(result.repairs) <= set(REPAIRS)
    assert len(result.repairs) == len(set(result.repairs))
    if result.outcome in ("parsed", "repaired"):
        assert result.response is not None
        if case.request_id is not None:
            assert result.response.in_reply_to.request_id == case.request_id
    else:
        assert (result.response, result.citations, result.tool_calls) == (None, [], [])
    assert (result.outcome == "error") == (result.markdown == "")
    assert result.ok == (result.outcome != "error")


def test_table_covers_every_outcome_and_repair() -> None:
    assert len(CASES) >= 40
    assert len({case.id for case in CASES}) == len(CASES)
    assert {case.outcome for case in CASES} == set(OUTCOMES)
    assert {name for case in CASES for name in case.repairs} == set(REPAIRS)


def test_module_docstring_documents_every_name() -> None:
    doc = parse.__doc__ or ""
    for name in (*OUTCOMES, *REPAIRS):
        assert f"| `{name}` |" in doc


def test_filled_envelope_uses_the_request_id() -> None:
    result = parse_response(dumps({"markdown": "Hi"}), request_id="req-9")
    assert result.response is not None
    assert result.response.in_reply_to.request_id == "req-9"
    assert result.response.type == "response"
    assert result.response.protocol.name == "laika.llmcp"
    assert result.response.sender.role == "assistant"


def test_dropped_items_keep_value_and_reason() -> None:
    bad = {"name": "browser.click", "arguments": {"handle": "x"}}
    result = parse_response(dumps(packet(tool_calls=[bad])), request_id="req-1")
    [item] = result.dropped
    assert (item.what, item.value) == ("tool_call", bad)
    assert "handleId" in item.reason or "handle" in item.reason


def test_a_crash_inside_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object) -> ParsedResponse:
        raise RuntimeError("bug")

    monkeypatch.setattr(parse, "_parse", boom)
    result = parse_response("anything")
    assert (result.outcome, result.raw) == ("error", "anything")
    assert "RuntimeError" in result.warnings[-1]


@pytest.mark.parametrize("cut", range(0, len(WITH_TOOL_CALL), 5))
def test_every_cut_of_a_valid_reply_is_safe(cut: int) -> None:
    # Wherever a model stops, no half-written tool call or citation is accepted.
    text = WITH_TOOL_CALL[:cut]
    result = parse_response(text, request_id="req-1")
    assert result.outcome in ("markdown_fallback", "error")
    assert (result.tool_calls, result.citations, result.raw) == ([], [], text)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=300),
        st.text(alphabet='{}[]",:\\ \n`<>/thinkjso0123456789.-', max_size=300),
        st.builds(
            lambda head, tail: head + VALID + tail, st.text(max_size=40), st.text(max_size=40)
        ),
    ),
    st.integers(min_value=-5, max_value=400),
)
def test_never_raises(text: str, max_chars: int) -> None:
    result = parse_response(text, request_id="req-1", max_chars=max_chars)
    assert result.outcome in OUTCOMES
    assert result.raw == text
    assert set(result.repairs) <= set(REPAIRS)


# --- Markdown mode --------------------------------------------------------------------------

MARKDOWN_REPLIES = [
    (
        'Twice a day [1].\n\nQuotes used:\n> "High water comes twice a day" (src:a)',
        "Twice a day [1].",
        [("src:a", "High water comes twice a day")],
    ),
    (
        "<think>the user wants</think>\nIt rises [1] and falls [2].\n"
        '- “it rises” (page:1)\n2. "and falls" ( src:b )',
        "It rises [1] and falls [2].",
        [("page:1", "it rises"), ("src:b", "and falls")],
    ),
    ("No quote here: the sources do not say.", "No quote here: the sources do not say.", []),
    ('> "only a quote" (src:c)', '> "only a quote" (src:c)', [("src:c", "only a quote")]),
    ('He said "yes" (twice) in the text.', 'He said "yes" (twice) in the text.', []),
]


@pytest.mark.parametrize(("reply", "answer", "quotes"), MARKDOWN_REPLIES)
def test_markdown_mode_reply(reply: str, answer: str, quotes: list[tuple[str, str]]) -> None:
    parsed = parse_markdown_reply(reply)
    assert parsed.ok
    assert parsed.markdown == answer
    assert [(q["doc_id"], q["quote"]) for q in parsed.quotes] == quotes
    assert parsed.raw == reply


def test_markdown_mode_reply_with_nothing_to_show_is_an_error() -> None:
    parsed = parse_markdown_reply("<think>unfinished")
    assert parsed.outcome == "error"
    assert parsed.raw == "<think>unfinished"


# --- hostile replies: any string parses, in bounded time, into something storable ----------

HOSTILE_PIECES = [
    "[", "{", '{"a":', "]", "}", '"', "\\", "\\ud800", "\\udfff", '"markdown": "', "```json\n",
    "```\n", "~~~~\n", "<think>", "</think>", ",", "\n", "word ", '> "q" (src:a)\n', "\ud800",
    "\udc00", "\U0001f600", "\r\n", "`", "<a href='x'", "{}", "[]", "\x00",
]  # fmt: skip
lone_surrogates = st.characters(categories=["Cs"])
prefixes = st.one_of(st.just(""), st.sampled_from(HOSTILE_PIECES), st.text(max_size=30))


def repeated(piece: str, count: int, prefix: str, tail: str) -> str:
    return prefix + piece * count + tail


hostile_replies = st.one_of(
    st.text(max_size=300),
    st.text(
        st.characters(categories=["Cs", "Ll", "Nd", "Ps", "Pe", "Po", "Zs", "Cc"]), max_size=300
    ),
    st.lists(st.sampled_from(HOSTILE_PIECES), max_size=60).map("".join),
    st.builds(  # huge and deep: one piece repeated up to 250,000 times, then anything
        repeated,
        st.sampled_from(HOSTILE_PIECES),
        st.integers(0, 250_000),
        prefixes,
        st.one_of(st.text(max_size=30), st.sampled_from(HOSTILE_PIECES)),
    ),
    st.builds(  # a valid response whose answer is huge, deep or invalid Unicode
        lambda text, count: dumps(packet(answer(markdown=text * count)), indent=None),
        st.one_of(st.sampled_from(["x", "word ", "\ud800", "[", "\U0001f600"]), lone_surrogates),
        st.integers(0, 120_000),
    ),
    st.builds(  # a valid response with one value nested deeper than any parser recurses
        lambda depth, where: dumps(packet(**{where: "DEEP"})).replace(
            '"DEEP"', "[" * depth + "]" * depth
        ),
        st.integers(0, 20_000),
        st.sampled_from(["extra", "tool_calls", "in_reply_to"]),
    ),
)
HOSTILE_SECONDS = 5.0


def storable(value: Any) -> None:
    """What a turn keeps can be written to SQLite and to a native-messaging frame."""
    json.dumps(value, ensure_ascii=False).encode("utf-8")


@settings(max_examples=250, deadline=None)
@given(
    hostile_replies,
    st.one_of(st.just(DEFAULT_MAX_CHARS), st.integers(0, 5_000)),
    st.sampled_from([parse_response, parse_markdown_reply]),
)
def test_any_reply_parses_in_bounded_time_into_a_storable_bounded_answer(
    text: str, max_chars: int, read: Any
) -> None:
    # CPU time, not wall time: other processes on these cores must not fail a complexity bound
    started = time.process_time()
    result = read(text, request_id="req-1", max_chars=max_chars)
    elapsed = time.process_time() - started
    assert elapsed < HOSTILE_SECONDS
    assert result.outcome in OUTCOMES
    assert result.raw is text
    assert not any(w.startswith("internal error") for w in result.warnings), result.warnings
    note = parse.TRUNCATION_MARKER.format(limit=max_chars)
    assert len(result.markdown) <= max(max_chars, len(note))
    assert result.truncated == (len(text) > max_chars) or result.truncated
    if result.truncated and result.ok:
        assert result.markdown.endswith(note)
    storable(result.markdown)
    storable([c.model_dump(mode="json") for c in result.citations])
    storable([call.model_dump(mode="json") for call in result.tool_calls])
    storable([item.value for item in result.dropped])
    storable(result.quotes)
    storable(result.warnings)


def test_a_reply_over_the_cap_keeps_its_answer_and_the_note_inside_the_cap() -> None:
    note = parse.TRUNCATION_MARKER.format(limit=DEFAULT_MAX_CHARS)
    kept = DEFAULT_MAX_CHARS - len(note)
    for letter, reply in (
        ("a", "a" * 250_000),
        ("b", dumps({"assistant": {"markdown": "b" * 250_000}})),  # cut JSON: salvaged
    ):
        result = parse_response(reply)
        assert result.truncated
        assert result.markdown == letter * kept + note


def reference_fences(text: str) -> list[str]:
    """The regex `_from_fence` used before (quadratic on unclosed fences): the reference."""
    pattern = re.compile(
        r"^[ \t]*(`{3,}|~{3,})[ \t]*[A-Za-z0-9_+.-]*[ \t]*\r?\n(.*?)^[ \t]*\1[ \t]*\r?$",
        re.S | re.M,
    )
    return [match.group(2) for match in pattern.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["```", "````", "~~~", "```json", "``` md ", "x", "{}", " ", "\r", ""]),
        max_size=12,
    ).map("\n".join)
)
def test_fenced_blocks_are_found_as_before(text: str) -> None:
    assert list(parse._fenced_blocks(text)) == reference_fences(text)


def test_unclosed_fences_are_scanned_in_linear_time() -> None:
    def prepare(lines: int) -> Callable[[], object]:
        text = "Answer:\n" + "```a\n" * lines
        return lambda: parse_response(text)

    # the old search took 100 s for 16,000 such lines
    assert_linear(prepare, 10_000, 40_000, bound=8)  # linear 4, quadratic 16
