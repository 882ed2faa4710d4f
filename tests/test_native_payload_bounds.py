"""Every integer a payload takes is bounded to what JavaScript and SQLite both hold, so an
out-of-range number is a `bad_request` naming its field, never an `internal` OverflowError
from SQLite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.native.errors import ErrorCode, HostError
from laika_host.native.handlers.base_models import StrictPayload
from laika_host.native.handlers.routes import default_router
from laika_host.native.transport.router import Route

from native_client import HostProcess

SAFE = 2**53 - 1  # JavaScript's largest exact integer; SQLite holds up to 2^63 - 1
PAYLOAD_ROUTES = [route for route in default_router().routes() if route.payload]


def _integer_nodes(node: Any, path: str = "$") -> list[tuple[str, dict[str, Any]]]:
    """Every schema node that admits an integer, with where it is."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if node.get("type") == "integer":
            found.append((path, node))
        for key, child in node.items():
            found.extend(_integer_nodes(child, f"{path}/{key}"))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            found.extend(_integer_nodes(child, f"{path}[{index}]"))
    return found


def _payload_schema(route: Route) -> dict[str, Any]:
    model = route.payload_model()
    assert model is not None
    return model.model_json_schema()


def _integer_fields(route: Route) -> list[tuple[str, int, int]]:
    """(field, minimum, maximum) of each top-level field that takes an integer."""
    fields = []
    for name, spec in _payload_schema(route).get("properties", {}).items():
        for _, node in _integer_nodes(spec):
            fields.append((name, node.get("minimum", -(2**200)), node.get("maximum", 2**200)))
    return fields


@pytest.mark.parametrize("route", PAYLOAD_ROUTES, ids=lambda route: route.name)
def test_every_integer_a_payload_takes_is_bounded(route: Route) -> None:
    assert issubclass(route.payload_model() or object, StrictPayload)  # which enforces it
    for path, node in _integer_nodes(_payload_schema(route)):
        assert node.get("minimum", -(2**200)) >= -SAFE, f"{route.name} {path} has no lower bound"
        assert node.get("maximum", 2**200) <= SAFE, f"{route.name} {path} has no upper bound"


ROUTES_WITH_INTEGERS = [route for route in PAYLOAD_ROUTES if _integer_fields(route)]


@st.composite
def out_of_range(draw: st.DrawFn) -> tuple[Route, str, int]:
    route = draw(st.sampled_from(ROUTES_WITH_INTEGERS))
    name, low, high = draw(st.sampled_from(_integer_fields(route)))
    value = draw(
        st.one_of(
            st.integers(min_value=high + 1),
            st.integers(max_value=low - 1),
            st.sampled_from([2**63, 2**63 + 1, 2**64, -(2**63) - 1, 10**4000]),
        )
    )
    return route, name, value


@settings(max_examples=300, deadline=None)
@given(out_of_range())
def test_an_out_of_range_integer_is_a_bad_request_naming_its_field(
    case: tuple[Route, str, int],
) -> None:
    route, name, value = case
    with pytest.raises(HostError) as caught:
        route.parse_payload({name: value})
    assert caught.value.code is ErrorCode.BAD_REQUEST
    paths = [issue["path"] for issue in (caught.value.details or {})["issues"]]
    assert any(path.startswith(f"payload.{name}") for path in paths), paths


def test_a_huge_offset_reaching_the_host_is_a_bad_request(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    try:
        for offset in (2**63, 2**64, 2**53):
            reply = host.request(
                {"id": f"o{offset}", "type": "sources.list", "payload": {"offset": offset}}
            )
            assert reply["ok"] is False
            assert reply["error"]["code"] == "bad_request"
            assert reply["error"]["message"].startswith("payload.offset: ")
        listed = host.request({"id": "fine", "type": "sources.list", "payload": {"offset": SAFE}})
        assert listed["ok"] is True
        assert listed["result"] == {"sources": []}
        assert host.close() == 0
        assert "Traceback" not in host.stderr
    finally:
        host.kill()


def test_a_payload_model_with_an_unbounded_integer_cannot_be_defined() -> None:
    from typing import Annotated

    from pydantic import Field

    with pytest.raises(TypeError, match=r"\$/properties/page .*need ge/le bounds"):

        class Paged(StrictPayload):
            page: Annotated[int, Field(ge=0)] = 0

    class Bounded(StrictPayload):
        page: Annotated[int, Field(ge=0, le=SAFE)] | None = None

    assert Bounded(page=SAFE).page == SAFE
