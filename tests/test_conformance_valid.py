"""Every JSON example of spec 000 validates, by the models and by the committed JSON Schemas."""

from __future__ import annotations

import json

import pytest

from laika_host.protocol import (
    CONTENT_MODELS,
    TOOL_CALL_MODELS,
    Citation,
    RequestPacket,
    ResponsePacket,
    check_packet,
)
from laika_host.protocol.validate import EnvelopeHeader

from support import SPEC_FIXTURES, load_fixture, run_laika, schema_validator

PACKETS = {
    "request_schema": ("request", "uuid"),
    "summarize_request": ("request", "req-1"),
    "response_schema": ("response", "uuid"),
    "summarize_response": ("response", "res-1"),
}


def test_every_spec_example_has_a_fixture() -> None:
    # 11 ```json blocks in spec 000; a fixture per block, nothing silently skipped
    assert len(list(SPEC_FIXTURES.glob("*.json"))) == 11


@pytest.mark.parametrize("name", sorted(PACKETS))
def test_spec_packet_validates(name: str) -> None:
    data = load_fixture(name)
    result = check_packet(data)
    assert result.issues == []
    assert (result.kind, result.label) == PACKETS[name]
    model = RequestPacket if result.kind == "request" else ResponsePacket
    assert isinstance(result.packet, model)
    schema_validator(f"llmcp/{result.kind}.schema.json").validate(data)


EVERY_EXAMPLE = {
    "envelope": "ok envelope uuid",
    "request_schema": "ok request uuid",
    "web.observation.summary.v1": "ok web.observation.summary.v1 https://example.com",
    "web.observation.chunk.v1": "ok web.observation.chunk.v1 https://example.com",
    "collection.index.v1": "ok collection.index.v1 col:123",
    "collection.source.v1": "ok collection.source.v1 src:1",
    "response_schema": "ok response uuid",
    "citation": "ok citation src_123",
    "tool_call": "ok tool_call browser.click",
    "summarize_request": "ok request req-1",
    "summarize_response": "ok response res-1",
}


def test_every_example_is_listed() -> None:
    assert {path.stem for path in SPEC_FIXTURES.glob("*.json")} == set(EVERY_EXAMPLE)


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("name", list(EVERY_EXAMPLE))
def test_laika_validate_accepts_every_spec_example(name: str) -> None:
    done = run_laika("validate", str(SPEC_FIXTURES / f"{name}.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == EVERY_EXAMPLE[name] + "\n"


def test_an_envelope_alone_is_not_a_complete_packet() -> None:
    # `laika validate` recognises the bare envelope; the host's packet check does not accept it
    assert not check_packet(load_fixture("envelope")).ok
    forced = run_laika("validate", "--as", "request", str(SPEC_FIXTURES / "envelope.json"))
    assert forced.returncode == 1
    assert forced.stdout == "input: required field is missing\n"


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize(
    ("name", "edit", "expected"),
    [
        ("tool_call", {"reason": "x"}, "reason: unknown key 'reason'"),
        ("citation", {"confidence": 1.5}, "confidence: must be <= 1.0 (got 1.5)"),
        ("web.observation.chunk.v1", {"chunk_index": 4}, "chunk_index: must be <= chunk_count (3)"),
        (
            "collection.source.v1",
            {"url": "file:///etc/passwd"},
            "url: must be an absolute http(s) URL",
        ),
        ("envelope", {"sender": {"role": "system"}}, "sender.role: must be 'user', 'agent'"),
    ],
)
def test_laika_validate_rejects_parts_by_their_own_rules(
    name: str, edit: dict[str, object], expected: str
) -> None:
    data = {**load_fixture(name), **edit}
    done = run_laika("validate", "-", stdin=json.dumps(data).encode())
    assert done.returncode == 1
    assert done.stdout.startswith(expected), done.stdout


def test_envelope_example_is_a_valid_envelope() -> None:
    data = load_fixture("envelope")
    envelope = EnvelopeHeader.model_validate(data)
    assert envelope.protocol.name == "laika.llmcp"
    assert envelope.protocol.version == 1
    assert envelope.conversation.turn == 7
    assert envelope.sender.role == "agent"
    assert envelope.created_at.isoformat() == "2026-01-28T12:34:56.789000+00:00"
    schema_validator("llmcp/envelope.schema.json").validate(data)


@pytest.mark.parametrize("kind", sorted(CONTENT_MODELS))
def test_document_kind_example_validates(kind: str) -> None:
    data = load_fixture(kind)
    content = CONTENT_MODELS[kind].model_validate(data)
    assert content.model_dump(mode="json")["doc_type"] == kind
    schema_validator(f"llmcp/documents/{kind}.schema.json").validate(data)


@pytest.mark.parametrize("kind", sorted(CONTENT_MODELS))
def test_document_kind_example_validates_inside_a_request(kind: str) -> None:
    request = load_fixture("summarize_request")
    request["context"]["documents"] = [
        {"doc_id": f"doc:{kind}", "kind": kind, "trust": "untrusted", "content": load_fixture(kind)}
    ]
    result = check_packet(request)
    assert result.issues == []
    schema_validator("llmcp/request.schema.json").validate(request)


def test_citation_example_validates() -> None:
    data = load_fixture("citation")
    citation = Citation.model_validate(data)
    assert citation.locator is not None
    assert citation.locator.type == "text_fragment"
    assert citation.confidence == 0.72
    schema_validator("llmcp/citation.schema.json").validate(data)


def test_tool_call_example_validates() -> None:
    data = load_fixture("tool_call")
    call = TOOL_CALL_MODELS[data["name"]].model_validate(data)
    assert call.arguments.model_dump() == {"handleId": "laika-1"}
    schema_validator("llmcp/tool_call.schema.json").validate(data)


def test_response_records_which_content_path_was_taken() -> None:
    with_render = check_packet(load_fixture("response_schema"))
    with_markdown = check_packet(load_fixture("summarize_response"))
    assert with_render.content_path == "render"
    assert with_markdown.content_path == "markdown_fallback"
    done = run_laika("validate", "--json", str(SPEC_FIXTURES / "summarize_response.json"))
    assert '"content_path": "markdown_fallback"' in done.stdout


def test_every_tool_with_only_optional_arguments_accepts_empty_arguments() -> None:
    for name, model in TOOL_CALL_MODELS.items():
        required = [
            f
            for f in model.model_fields["arguments"].annotation.model_fields.values()
            if f.is_required()
        ]  # type: ignore[union-attr]
        if not required:
            assert model.model_validate({"name": name}).arguments.model_dump() == {}
            assert model.model_validate({"name": name, "arguments": {}}).name == name
