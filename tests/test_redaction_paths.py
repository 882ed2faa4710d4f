"""Every secret shape the redact package knows leaves the three ways text gets out the same
way: model-provider error messages, log lines and stored text all drop it, and all three agree
with `redact_text` on the same text. Wherever the secret sits, also across the point where a
message or a logged line is cut (a key cut first, then redacted, kept its head)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.cli._logging import HumanFormatter
from laika_host.controls import escape_controls, strip_controls
from laika_host.llm.errors import MAX_MESSAGE, from_status, from_stream_error, scrub
from laika_host.llm.streams import MAX_LOGGED_LINE, parse_json_line
from laika_host.native.transport.logsetup import LOG_FORMAT, SafeFormatter
from laika_host.redact import _formats, redact_prefix, redact_text
from laika_host.store import open_store


def _format_strategy(pattern: re.Pattern[str]) -> st.SearchStrategy[tuple[str, str]]:
    """(how the key is written, the key) for one self-identifying format. A format that
    only counts after a fixed context (`(?<=hooks\\.slack\\.com/)...`) gets that context."""
    source, context = pattern.pattern, ""
    if source.startswith("(?<="):
        end = source.index(")")  # the context is a literal without parentheses
        context = re.sub(r"\\(.)", r"\1", source[4:end])
        source = source[end + 1 :]
        context = ("https://example.com" if context.startswith("/") else "https://") + context
    keys = st.from_regex(re.compile(source), fullmatch=True)
    return keys.map(lambda key: (context + key, key))


KEY_SHAPES = [
    _format_strategy(pattern).filter(lambda pair, check=check: check is None or check(pair[1]))
    for _, pattern, check in _formats._FORMATS
]
# Secrets known by where they stand rather than by their own shape.
SETTINGS = [
    "Authorization: Bearer {}",
    "Cookie: session={}",
    "password={}",
    'api_key: "{}"',
    "https://user:{}@example.com/x",
    "https://example.com/page?access_token={}&x=1",
    "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
]
values = st.text(
    alphabet="abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=16, max_size=60
).filter(lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v))
SETTING_SHAPES = [values.map(lambda v, f=form: (f.format(v), v)) for form in SETTINGS]
secrets = st.one_of(*KEY_SHAPES, *SETTING_SHAPES)

FILLER = "the provider said that the request could not be served today, " * 20


@st.composite
def texts(draw: st.DrawFn) -> tuple[str, str]:
    """(text, secret): the secret after filler of any length up to past every cut, so it
    may straddle the 200 characters of a logged line or the 500 of an error message."""
    written, secret = draw(secrets)
    before = FILLER[: draw(st.integers(0, MAX_MESSAGE + 100))].rstrip()
    after = draw(st.sampled_from(["", " (request id 7)", ". Try again later.", "\nnext line"]))
    return f"{before} {written}{after}".lstrip(), secret


class _Lines:
    """The lines a real formatter writes for one logger, as the host and the CLI write them."""

    def __init__(self, logger: str, formatter: logging.Formatter) -> None:
        self.stream = io.StringIO()
        self.handler = logging.StreamHandler(self.stream)
        self.handler.setFormatter(formatter)
        self.logger = logging.getLogger(logger)

    def __enter__(self) -> _Lines:
        self.logger.addHandler(self.handler)
        return self

    def __exit__(self, *_: object) -> None:
        self.logger.removeHandler(self.handler)

    @property
    def text(self) -> str:
        return self.stream.getvalue()


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("paths") / "laika.db"


async def _stored(path: Path, text: str) -> str:
    """`text` written as a chat message through the store, read back from the file itself."""
    async with open_store(path) as store:
        collection = await store.collections.ensure("Redaction")
        event = await store.chat.append(collection.id, "user", text)
    with contextlib.closing(sqlite3.connect(path)) as raw, raw:
        row = raw.execute("SELECT markdown FROM chat_events WHERE id = ?", (event.id,)).fetchone()
    return str(row[0])


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=texts())
def test_errors_logs_and_the_store_drop_every_known_secret_alike(
    case: tuple[str, str], store_path: Path
) -> None:
    text, secret = case
    expected = redact_text(text)
    assert secret not in expected

    # model-provider error messages: from a status and body, from the stream, the client's
    streamed = from_stream_error({"type": "api_error", "message": text}, provider="p")
    assert streamed.message == "error in the stream: " + redact_prefix(text, MAX_MESSAGE)
    answered = from_status(500, json.dumps({"error": {"message": text}}), provider="p")
    assert answered.message == "p answered HTTP 500: " + redact_prefix(text, MAX_MESSAGE)
    assert scrub(text) == redact_prefix(text, MAX_MESSAGE)
    assert expected.startswith(scrub(text))
    for error in (streamed, answered):
        assert secret not in json.dumps(error.to_json())

    # log lines: the host's file format, the CLI's terminal line, a logged stream line, and
    # a JSON event that carries the text unredacted (quotes escaped, newlines as `\n`)
    with (
        _Lines("laika.redaction", SafeFormatter(LOG_FORMAT)) as host,
        _Lines("laika.redaction", HumanFormatter("cli.log")) as terminal,
        _Lines("laika.llm", logging.Formatter("%(message)s")) as stream,  # its own redaction
        _Lines("laika.events", SafeFormatter(LOG_FORMAT)) as event,
    ):
        logging.getLogger("laika.redaction").warning("%s", text)
        assert parse_json_line(text, where="test") is None
        logging.getLogger("laika.events").error(json.dumps({"event": "failed", "detail": text}))
    assert host.text.rstrip("\n").endswith(escape_controls(expected))
    assert terminal.text.rstrip("\n").endswith(" ".join(strip_controls(expected).split()))
    logged = json.loads(stream.text)["line"]
    assert logged == redact_prefix(text, MAX_LOGGED_LINE)
    for line in (host.text, terminal.text, stream.text, event.text):
        assert secret not in line

    # stored text: what the database file holds
    stored = asyncio.run(_stored(store_path, text))
    assert stored == expected
