"""Hostile changes to the settings registry (issue #17): whatever value any writer gives for
any path, the change is made or refused with a LaikaError, and the file every reader parses
stays readable. A 5,000-digit preference once became `Infinity` in registry.json (pydantic
read the too-long string as a float), and a value nested 900 levels deep overflowed the
secret check's recursion: both left the user with a traceback or an unusable registry."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hostile_json import nest
from laika_host.config import registry
from laika_host.config.registry import MAX_REGISTRY_BYTES
from laika_host.errors import LaikaError

from support import run_laika

PATHS = [
    "user.preferences.p",
    "capture.max_chars",
    "capture.default_collection",
    "ui.theme",
    "redaction.extra_secret_names",
    "providers.items",
    "events.rules",
]
numeric_texts = st.one_of(
    st.integers(1, 6000).map(lambda digits: "9" * digits),
    st.sampled_from(["1e999", "-1e400", "nan", "NaN", "inf", "-Infinity", "1e308", "0x10"]),
)
plain_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20), numeric_texts
)
big_texts = st.sampled_from([100, 2001, MAX_REGISTRY_BYTES + 1]).map(lambda size: "x" * size)
scalars = st.one_of(plain_scalars, big_texts)
nested = st.builds(nest, plain_scalars, st.integers(0, 3000), st.booleans())


def _provider(timeout: Any, tokens: Any) -> list[dict[str, Any]]:
    return [
        {
            "id": "p",
            "kind": "ollama",
            "model": "m",
            "timeouts": {"read": timeout},
            "default_max_tokens": tokens,
        }
    ]


def _rule(param: Any) -> list[dict[str, Any]]:
    return [
        {
            "id": "r",
            "trigger": "source.captured",
            "actions": [{"tool": "collection.add_sources", "params": {"x": param}}],
        }
    ]


values = st.one_of(
    scalars,
    nested,
    st.lists(scalars, max_size=3),
    st.builds(_provider, scalars, scalars),
    st.builds(_rule, st.one_of(scalars, nested)),
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PATHS), values)
def test_any_change_is_made_or_refused_and_the_file_stays_readable(path: str, value: Any) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary) / "config"
        registry.load(directory)
        before = (directory / "registry.json").read_bytes()
        refused: LaikaError | None = None
        try:
            registry.mutate({path: value}, who="cli", tool="config.set", directory=directory)
        except LaikaError as error:
            refused = error
        if refused is not None:
            assert 0 < len(str(refused)) < 2000
            assert (directory / "registry.json").read_bytes() == before
        assert registry.load(directory).schema_version == 1  # a fresh parse: the file changed


def test_the_command_refuses_a_five_thousand_digit_preference_and_keeps_working(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    for value in ("9" * 5000, "[" * 900 + "]" * 900):
        refused = run_laika("config", "set", "user.preferences.n", value, env=env)
        assert refused.returncode == 1, refused.stderr
        assert refused.stderr.startswith("laika: ")
        assert "Traceback" not in refused.stderr
        assert "user.preferences.n" in refused.stderr
    made = run_laika("config", "set", "user.preferences.n", "12", env=env)
    assert made.returncode == 0, made.stderr
    got = run_laika("config", "get", "user.preferences.n", env=env)
    assert (got.returncode, got.stdout.strip()) == (0, "12")


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.text(max_size=3000),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(),
        st.booleans(),
        st.none(),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    )
)
def test_a_preference_is_stored_or_refused_with_one_reason_naming_it(value: Any) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary) / "config"
        try:
            registry.mutate(
                {"user.preferences.p": value}, who="cli", tool="config.set", directory=directory
            )
        except LaikaError as error:
            message = str(error)
            assert message.startswith("user.preferences.p: "), message
            assert message.count(";") == message.count("; quote it"), message  # one reason
            assert "Value error" not in message, message
            assert "constrained" not in message, message
        else:
            assert registry.load(directory).user.preferences["p"] == value
