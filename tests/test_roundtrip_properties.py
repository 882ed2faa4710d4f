"""Property-based tests: generated valid packets round-trip exactly; garbage never crashes."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.protocol import Document, RequestPacket, ResponsePacket, check_packet
from laika_host.render import document_to_markdown

from strategies import json_values, packets, render_documents
from support import schema_validator

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _model(data: dict[str, Any]) -> type[RequestPacket] | type[ResponsePacket]:
    return RequestPacket if data["type"] == "request" else ResponsePacket


@SETTINGS
@given(packets)
def test_generated_packets_are_valid(data: dict[str, Any]) -> None:
    result = check_packet(data)
    assert result.issues == []
    assert result.ok


@pytest.mark.slow  # > 5 s here
@SETTINGS
@given(packets)
def test_model_to_json_to_model_is_identity(data: dict[str, Any]) -> None:
    model = _model(data)
    packet = model.model_validate(data)
    assert model.model_validate_json(packet.to_json()) == packet
    assert model.model_validate(json.loads(packet.to_json())) == packet


@SETTINGS
@given(packets)
def test_json_output_is_stable_and_keeps_every_given_key(data: dict[str, Any]) -> None:
    model = _model(data)
    first = model.model_validate(data).to_json_dict()
    second = model.model_validate(first).to_json_dict()
    assert first == second
    _assert_contains(first, data)


def _assert_contains(output: Any, given_data: Any) -> None:
    """Every key the input had is in the output (defaults may be added, nothing dropped)."""
    if isinstance(given_data, dict):
        for key, value in given_data.items():
            assert key in output
            _assert_contains(output[key], value)
    elif isinstance(given_data, list):
        assert len(output) == len(given_data)
        for out_item, in_item in zip(output, given_data, strict=True):
            _assert_contains(out_item, in_item)


@pytest.mark.slow  # > 5 s here
@SETTINGS
@given(packets)
def test_committed_json_schema_accepts_every_valid_packet(data: dict[str, Any]) -> None:
    schema_validator(f"llmcp/{data['type']}.schema.json").validate(data)


@pytest.mark.slow  # > 5 s here
@SETTINGS
@given(render_documents)
def test_render_documents_round_trip_and_convert(data: dict[str, Any]) -> None:
    document = Document.model_validate(data)
    assert Document.model_validate_json(document.to_json()) == document
    assert isinstance(document_to_markdown(document), str)


@SETTINGS
@given(json_values)
def test_arbitrary_json_never_crashes_the_validator(data: Any) -> None:
    result = check_packet(data)
    assert not result.ok
    assert result.issues
    assert all(issue.path for issue in result.issues)
    assert all(issue.message for issue in result.issues)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


@pytest.mark.slow  # > 3 s with the cores busy
@SETTINGS
@given(packets, st.data())
def test_mutated_packets_never_crash_and_issues_name_a_path(
    data: dict[str, Any], draw: st.DataObject
) -> None:
    mutated = copy.deepcopy(data)
    paths = _paths(mutated)
    target = draw.draw(st.sampled_from(paths))
    parent = mutated
    for segment in target[:-1]:
        parent = parent[segment]
    replacement = draw.draw(st.one_of(json_values, st.just("__delete__")))
    if replacement == "__delete__":
        del parent[target[-1]]
    else:
        parent[target[-1]] = replacement
    result = check_packet(mutated)
    for issue in result.issues:
        assert issue.path
        assert issue.message
        assert not issue.path.startswith(".")
