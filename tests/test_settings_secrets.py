"""Secrets said in plain language never become settings (#24): `laika settings "remember my
password is hunter2hunter2"` wrote it to registry.json and the settings history. Every
sentence that says it holds a secret (a secret's name, then the secret, or the secret in the
syntax where it is written) is refused before anything reads it further, and every write of
the registry (a preference, an event rule's text, any setting) refuses a value or a name that
holds one, whoever proposes it: so no secret of the corpus reaches registry.json, its git
history, the rule store, the database or a log, through any phrasing."""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from dulwich.repo import Repo
from hypothesis import example, given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.cli.settings import settings_runner
from laika_host.config import registry
from laika_host.errors import LaikaError
from laika_host.redact import redact_text, says_secret
from laika_host.service import rules as rule_service
from laika_host.service.models import ProviderChoice
from laika_host.service.settings import ask, check_text
from laika_host.store import InvalidInputError, open_store
from secret_corpus import LOOKALIKES, PLANTED

from support import run_laika

NOUNS = (
    "password", "passphrase", "passcode", "wifi password", "bank pin", "pin", "api key",
    "github token", "access token", "login password", "pwd", "secret key", "client secret",
    "recovery code", "database password", "Password", "PIN", "API key",
)  # fmt: skip
"""What a user calls a secret when they say it."""
SAID = (
    "remember my {noun} is {secret}",
    "remember that my {noun} is {secret}",
    "remember my {noun} = {secret}",
    "remember my {noun}: {secret}",
    "Remember: my {noun} is {secret}.",
    "remember my note is my {noun} is {secret}",
    "remember my {noun} for the bank is {secret}",
    "set preference note to my {noun} is {secret}",
    "set my {noun} to {secret}",
    "save preference {key} as {secret}",
    "remember {secret} is my {noun}",
    "remember my wifi {noun} is {secret}",
    "when a page containing my {noun} is {secret} is captured, add it to Research",
    "my {noun} is {secret}, remember it",
)
"""Ways to say it: every slot the matcher (or a model) could fill from the sentence."""
WRITTEN = (
    "remember my note is {text}",
    "set preference note to {text}",
    "remember my {text}",
    "when a page containing {text} is captured, add it to Research",
)
"""The secret in the syntax where it is written (a config line, a header, a URL)."""


@st.composite
def sentences(draw: st.DrawFn) -> tuple[str, str]:
    planted = draw(st.sampled_from(PLANTED))
    if draw(st.booleans()):
        noun = draw(st.sampled_from(NOUNS))
        template = draw(st.sampled_from(SAID))
        text = template.format(noun=noun, secret=planted.secret, key=noun.replace(" ", "_"))
    else:
        text = draw(st.sampled_from(WRITTEN)).format(text=planted.text)
    return text, planted.secret


def _kept(home: Path) -> Iterator[tuple[str, bytes]]:
    """Every byte Laika keeps: the registry, every object of its git history (blobs and
    commit messages, decompressed), the database and the logs."""
    config = home / "config"
    if (config / ".git").exists():
        repo = Repo(str(config))
        for sha in repo.object_store:
            yield f"history {sha.decode()}", repo.object_store[sha].as_raw_string()
    for path in home.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            yield str(path.relative_to(home)), path.read_bytes()


def assert_not_kept(home: Path, secret: str) -> None:
    found = [where for where, data in _kept(home) if secret.encode() in data]
    assert not found, f"{secret[:12]}... kept in {found}"


@contextmanager
def laika_home() -> Iterator[Path]:
    with (
        tempfile.TemporaryDirectory() as temporary,
        mock.patch.dict(os.environ, {"LAIKA_HOME": temporary}),
    ):
        registry.load(Path(temporary) / "config")
        yield Path(temporary)


def _ask(text: str) -> Any:
    async def main() -> Any:
        async with open_store(Path(os.environ["LAIKA_HOME"]) / "laika.db") as store:
            runner = settings_runner(store, yes=True, prompt=False)
            return await ask(store, text, provider=ProviderChoice("offline"), runner=runner)

    return asyncio.run(main())


@settings(max_examples=200)
@given(sentences())
@example(("remember my password is hunter2hunter2", "hunter2hunter2"))
@example(("remember my wifi passphrase is hunter2hunter2", "hunter2hunter2"))
@example(("remember my bank pin is 4821", "4821"))
def test_a_sentence_saying_a_secret_is_refused_and_nothing_kept(said: tuple[str, str]) -> None:
    text, secret = said
    home = Path(os.environ["LAIKA_HOME"])  # one for every example: a secret is checked
    with pytest.raises(InvalidInputError) as refused:  # against all that earlier ones kept
        _ask(text)
    assert "never stores secrets" in str(refused.value)
    assert secret not in str(refused.value)
    assert_not_kept(home, secret)


@settings(max_examples=100)
@given(sentences(), st.sampled_from(["note", "wifi", "x"]))
def test_no_write_of_the_registry_keeps_a_secret_whoever_proposes_it(
    said: tuple[str, str], name: str
) -> None:
    """What a model may propose with the sentence in any slot: a preference's value or
    name, an event rule's condition or action, any other setting."""
    text, secret = said
    writes: list[Any] = [
        lambda: registry.mutate({f"user.preferences.{name}": text}, who="model", tool="t"),
        lambda: registry.mutate({"capture.default_collection": text[:200]}, who="model", tool="t"),
        lambda: rule_service.add(
            {
                "trigger": "source.captured",
                "conditions": {"contains": text[:200]},
                "actions": [{"tool": "collection.create", "params": {"title": "x"}}],
            },
            who="model",
        ),
        lambda: rule_service.add(
            {
                "trigger": "source.captured",
                "actions": [{"tool": "collection.create", "params": {"title": text[:200]}}],
            },
            who="model",
        ),
    ]
    if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", secret) and redact_text(secret) != secret:
        writes.append(
            lambda: registry.mutate({f"user.preferences.{secret}": "x"}, who="model", tool="t")
        )
    with laika_home() as home:
        for write in writes:
            with suppress(LaikaError):
                write()
        assert_not_kept(home, secret)


def test_the_reproduction_through_the_command() -> None:
    home = Path(os.environ["LAIKA_HOME"])
    for text in (
        "remember my password is hunter2hunter2",
        "remember my wifi passphrase is hunter2hunter2",
        "set preference note to my password is hunter2hunter2",
    ):
        done = run_laika("settings", text, "--yes")
        assert done.returncode == 2, done.stdout + done.stderr
        assert "looks like a password" in done.stderr
        assert "password manager" in done.stderr
        assert "hunter2hunter2" not in done.stdout + done.stderr
    done = run_laika("config", "set", "user.preferences.note", "my password is hunter2hunter2")
    assert done.returncode == 1
    assert "password manager" in done.stderr
    assert_not_kept(home, "hunter2hunter2")


@pytest.mark.parametrize(
    "text",
    [
        "use dark mode",
        "treat session_ref as a secret",
        "add x-api-token to the secret names",
        "stop redacting api_key",
        "remember that my reading_speed is 300",
        "set my preference language to French",
        "remember my password manager is 1Password",
        "remember that my password is in my password manager",
        "remember my session is tomorrow",
        "remember the password is required",
        "pin the side panel",
        "limit captures to 50,000 characters",
    ],
)
def test_ordinary_settings_sentences_still_pass(text: str) -> None:
    assert check_text(text) == text
    assert not says_secret(text)


def test_look_alike_prose_says_no_secret() -> None:
    assert [text for text in LOOKALIKES if says_secret(text)] == []


@pytest.mark.parametrize(
    "unit",
    [
        "my password for the bank ",
        "password is ",
        "x is my wifi password ",
        "recovery_code: ",
        "set my pin to pin to ",
        "token ",
    ],
)
def test_saying_a_secret_is_read_in_linear_time(unit: str) -> None:
    assert_linear(lambda n: lambda: says_secret(unit * n), 200, 1_600, 24)
