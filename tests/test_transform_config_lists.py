"""A transform's list setting as a user writes it (issue #25 item 6): `--config
aspects="price, battery"`, the key repeated, or JSON all give the same list. These types
need a model (offline they are refused before anything is made); with one, a row keeps
exactly the chosen aspects or columns and a line by a speaker who is not a host is left out,
each with a warning."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from laika_host.transform.config import ComparisonConfig, PodcastConfig, from_pairs
from test_transform_model import seed, transform

from llm_servers import ProviderServer, Reply, openai_sse
from support import run_laika

ITEM = st.text(
    st.characters(codec="utf-8", exclude_characters=',"\\', exclude_categories=("Cs", "Cc")),
    min_size=1,
    max_size=20,
).filter(lambda item: item.strip() == item and item and not item.startswith("["))
"""An item as typed after `key=`: one starting with `[` opens a JSON list there by design (its
error then says so), so the three spellings agree only on the others."""


@given(st.lists(ITEM, min_size=1, max_size=8))
def test_the_three_ways_to_write_a_list_give_the_same_list(items: list[str]) -> None:
    commas = from_pairs(ComparisonConfig, [("aspects", ", ".join(items))])
    repeated = from_pairs(ComparisonConfig, [("aspects", item) for item in items])
    as_json = from_pairs(ComparisonConfig, [("aspects", json.dumps(items))])
    assert commas == repeated == as_json == {"aspects": items}
    assert ComparisonConfig.model_validate(commas).aspects == items


def test_a_list_item_with_a_comma_needs_json_and_text_stays_text() -> None:
    assert from_pairs(ComparisonConfig, [("aspects", '["price, value", "battery"]')]) == {
        "aspects": ["price, value", "battery"]
    }
    assert from_pairs(PodcastConfig, [("audience", "true"), ("length", "short")]) == {
        "audience": "true",  # a text setting: the text as written, not JSON's true
        "length": "short",
    }
    assert from_pairs(PodcastConfig, [("hosts", "")]) == {"hosts": []}


def _home(tmp_path: Path) -> dict[str, str]:
    seed(tmp_path / "laika.db")
    return {**os.environ, "LAIKA_HOME": str(tmp_path)}


def _run(env: dict[str, str], *args: str) -> Any:
    done = run_laika("transform", "run", *args, "-c", "Demo", "--json", env=env)
    return done.returncode, json.loads(done.stdout) if done.stdout else done.stderr


def test_the_cli_takes_commas_repeats_and_json_and_a_type_that_needs_a_model_says_so(
    tmp_path: Path,
) -> None:
    env = _home(tmp_path)
    for form in (
        ["--config", "aspects=price, battery"],
        ["--config", "aspects=price", "--config", "aspects=battery"],
        ["--config", 'aspects=["price", "battery"]'],
    ):
        refused = run_laika("transform", "run", "comparison", "-c", "Demo", *form, env=env)
        assert refused.returncode == 1  # the setting was read; the offline runtime refuses
        assert "Comparison needs a model: choosing what to compare" in refused.stderr
        assert "--provider ID" in refused.stderr
    bad = run_laika(
        "transform", "run", "comparison", "-c", "Demo", "--config", "aspects=[price", env=env
    )
    assert bad.returncode == 1
    assert "needs a model" not in bad.stderr
    listed = run_laika("artifacts", "list", "--json", env=env)
    assert json.loads(listed.stdout)["artifacts"] == []  # nothing was made
    twice = run_laika(
        "transform", "run", "quiz", "-c", "Demo", "--config", "count=3", "--config", "count=4",
        env=env,
    )  # fmt: skip
    assert twice.returncode == 1
    assert "count is given twice" in twice.stderr


def _server(lines: list[dict[str, Any]]) -> ProviderServer:
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    return ProviderServer([Reply(chunks=openai_sse([text]))], only="/chat/completions")


def test_with_a_model_a_row_keeps_exactly_the_chosen_aspects(tmp_path: Path) -> None:
    ids = seed(tmp_path / "laika.db")
    tides = ids["harbour-tides"]
    quote = "Spring tides run higher than neap tides"
    server = _server(
        [
            {
                "subject": "Tides",
                "cells": {"Price": "free", "colour": "blue", "Battery ": "none"},
                "citations": [{"source_id": tides, "quote": quote}],
            },
            {"subject": "Moon", "cells": {"weight": "heavy"}, "citations": []},
        ]
    )
    try:
        result, _ = transform(
            tmp_path / "laika.db",
            server,
            type_id="comparison",
            config={"aspects": ["price", "battery"]},
        )
    finally:
        server.close()
    cells = [item["data"]["cells"] for item in result["artifact"]["items"]]
    assert cells == [{"price": "free", "battery": "none"}, {"price": "—", "battery": "—"}]
    assert any("only yours are kept: price, battery" in w for w in result["warnings"])


def test_with_a_model_a_line_by_someone_else_than_the_hosts_is_left_out(tmp_path: Path) -> None:
    ids = seed(tmp_path / "laika.db")
    tides = ids["harbour-tides"]
    cite = [{"source_id": tides, "quote": "Spring tides run higher than neap tides"}]
    server = _server(
        [
            {"speaker": "ana", "line": "Why are spring tides high?", "citations": cite},
            {"speaker": "Narrator", "line": "Meanwhile, at sea.", "citations": cite},
            {"speaker": "Ben", "line": "The moon and sun pull together.", "citations": cite},
        ]
    )
    try:
        result, _ = transform(
            tmp_path / "laika.db",
            server,
            type_id="podcast-script",
            config={"hosts": ["Ana", "Ben"]},
        )
    finally:
        server.close()
    speakers = [item["data"]["speaker"] for item in result["artifact"]["items"]]
    assert speakers == ["Ana", "Ben"]
    assert any("other than Ana, Ben were left out" in w for w in result["warnings"])


def test_with_a_model_chosen_table_columns_are_kept(tmp_path: Path) -> None:
    ids = seed(tmp_path / "laika.db")
    tides = ids["harbour-tides"]
    server = _server(
        [
            {
                "cells": {"Figure": "2", "unit": "tides a day", "extra": "x"},
                "citations": [{"source_id": tides, "quote": "Spring tides"}],
            }
        ]
    )
    try:
        result, _ = transform(
            tmp_path / "laika.db",
            server,
            type_id="data-table",
            config={"columns": ["figure", "unit"]},
        )
    finally:
        server.close()
    assert [item["data"]["cells"] for item in result["artifact"]["items"]] == [
        {"figure": "2", "unit": "tides a day"}
    ]
