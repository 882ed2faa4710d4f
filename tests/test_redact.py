"""The one redaction module: every planted secret kind goes, look-alike prose stays, in linear
time, for any text around it (Hypothesis), and URLs lose credentials wherever they hide."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from laika_host.redact import (
    REDACTED,
    is_secret_name,
    redact_string,
    redact_text,
    redact_url,
    redact_value,
)
from secret_corpus import LOOKALIKES, PLANTED, PLANTED_URLS, Planted

from support import REPO


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.kind)
def test_every_planted_secret_is_redacted_once_and_for_all(planted: Planted) -> None:
    redacted = redact_text(planted.text)
    assert planted.secret not in redacted
    assert REDACTED in redacted
    assert redact_text(redacted) == redacted


@pytest.mark.parametrize(("url", "secret"), PLANTED_URLS)
def test_urls_lose_user_info_and_secret_parameters_in_query_fragment_and_path(
    url: str, secret: str
) -> None:
    for redacted in (redact_url(url), redact_text(f"see {url} now"), redact_string(url)):
        assert secret not in redacted
    assert "admin" not in redact_url(url)  # a URL field keeps no user name at all


@pytest.mark.parametrize("prose", LOOKALIKES)
def test_lookalike_prose_and_urls_survive_unchanged(prose: str) -> None:
    assert redact_text(prose) == prose
    if prose.startswith("http"):
        assert redact_url(prose) == prose


def test_a_url_is_returned_as_written_when_nothing_is_removed() -> None:
    url = "HTTPS://Example.org:8443/a%20b/?utm_source=x&b=%2F#frag"
    assert redact_url(url) == url


# --- names -------------------------------------------------------------------------------

SECRET_WORDS = ["token", "secret", "password", "passwd", "signature", "sig", "credential"]
SECRET_WORDS += ["session", "jwt", "auth", "apikey", "sessionid", "cookie", "csrf"]
KEY_QUALIFIERS = ["api", "access", "private", "secret", "client", "subscription"]
PREFIXES = ["", "x", "my", "goog", "amz", "oauth", "refresh", "id", "private", "api", "user"]


def _spell(words: list[str], style: str) -> str:
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    if style == "pascal":
        return "".join(w.capitalize() for w in words)
    return {"snake": "_", "kebab": "-", "dot": ".", "header": "-"}[style].join(
        w.capitalize() if style == "header" else w for w in words
    )


@st.composite
def secret_names(draw: st.DrawFn) -> str:
    """`accessToken`, `X-Goog-Signature`, `private_token`, `Api-Key`, `jwt`, ..."""
    if draw(st.booleans()):
        core = [draw(st.sampled_from(SECRET_WORDS))]
    else:
        core = [draw(st.sampled_from(KEY_QUALIFIERS)), "key"]
    prefix = draw(st.sampled_from(PREFIXES))
    words = ([prefix] if prefix else []) + core
    if draw(st.booleans()):
        words.append(draw(st.sampled_from(["", "id", "value", "v2"])))
    style = draw(st.sampled_from(["camel", "pascal", "snake", "kebab", "dot", "header"]))
    return _spell([w for w in words if w], style)


values = st.text(
    alphabet="abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-._~", min_size=6, max_size=30
).filter(lambda v: v[0].isalnum() and v[-1].isalnum())


@given(name=secret_names(), value=values)
def test_any_spelling_of_a_secret_name_is_recognized_in_urls_and_text(
    name: str, value: str
) -> None:
    assert is_secret_name(name), name
    url = f"https://example.org/p?page=2&{name}={value}#x"
    assert value not in redact_url(url)
    assert "page=2" in redact_url(url)
    assert value not in redact_url(f"https://example.org/cb#{name}={value}&state=1")
    for text in (f"{name}={value}", f'"{name}": "{value}"', f"{name}: '{value}'"):
        assert value not in redact_text(f"see {text} here"), text
    assert redact_value({name: value}) == {name: REDACTED}


ORDINARY_NAMES = ["page", "sort", "q", "lang", "keyboard", "tokens", "author", "id", "offset"]


@given(
    names=st.lists(st.sampled_from(ORDINARY_NAMES), max_size=4),
    path=st.from_regex(r"(/[a-z0-9-]{1,12}){0,3}", fullmatch=True),
    fragment=st.sampled_from(["", "#top", "#section-2", "#:~:text=the%20key"]),
)
def test_ordinary_urls_pass_unchanged(names: list[str], path: str, fragment: str) -> None:
    query = "&".join(f"{name}={n}" for n, name in enumerate(names))
    url = f"https://example.org{path}" + (f"?{query}" if query else "") + fragment
    assert redact_url(url) == url


# --- any text around a secret ------------------------------------------------------------

prose = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)


@given(before=prose, planted=st.sampled_from(PLANTED), after=prose)
def test_a_secret_is_redacted_whatever_text_surrounds_it(
    before: str, planted: Planted, after: str
) -> None:
    redacted = redact_text(f"{before}\n{planted.text}\n{after}")
    assert planted.secret not in redacted


@given(
    text=st.text(max_size=200)
    | st.lists(
        st.sampled_from(
            [p.text for p in PLANTED] + list(LOOKALIKES) + [" ", "\n", "=", ":", '"', "://", "@"]
        ),
        max_size=12,
    ).map("".join)
)
def test_redaction_is_idempotent(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


def test_structured_values_lose_secret_keys_urls_and_text_secrets() -> None:
    value = {
        "headers": {"Authorization": "Bearer abc", "X-Api-Key": "k", "Accept": "text/html"},
        "url": PLANTED_URLS[0][0],
        "notes": [PLANTED[0].text, 3, None, True],
        "input_tokens": 12,
    }
    redacted = redact_value(value)
    assert redacted["headers"] == {
        "Authorization": REDACTED,
        "X-Api-Key": REDACTED,
        "Accept": "text/html",
    }
    assert redacted["url"] == "https://example.org/cb"
    assert PLANTED[0].secret not in redacted["notes"][0]
    assert redacted["notes"][1:] == [3, None, True]
    assert redacted["input_tokens"] == 12


# --- bounded, linear time ----------------------------------------------------------------

ADVERSARIAL = [
    "a",
    "a=",
    "a:",
    "password:",
    "password=",
    'token="',
    "a\\_b:",
    "x" * 63 + "=",
    "sk-",
    "sk-a",
    "eyJ",
    "eyJa.",
    "://",
    "://a@",
    "http://a?",
    "http://a#",
    "Cookie: a=b;",
    "Authorization: Bearer a,",
    "bearer ",
    "AKIA",
    "aB1/",
    "1234567890:AA",
    "-----BEGIN ",
    "-----BEGIN PRIVATE KEY-----",
    "hooks.slack.com/services/",
    "/api/webhooks/1",
    " ",
    '"',
]


def _seconds(text: str, repeat: int = 3) -> float:
    """The best of `repeat` runs (other processes share these cores), each on a fresh copy so
    that no run finds the text already known clean."""
    best = float("inf")
    for run in range(repeat):
        fresh = f"{text}\n{run}"
        started = time.perf_counter()
        redact_text(fresh)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("seed", ADVERSARIAL)
def test_every_rule_runs_in_linear_time_on_adversarial_text(seed: str) -> None:
    small = seed * (50_000 // len(seed) + 1)
    large = small * 4
    small_time, large_time = _seconds(small), _seconds(large)
    # linear: about 4x; quadratic: 16x. Tiny times are all noise, hence the floor.
    assert large_time < max(8 * small_time, 0.05), (
        f"{seed!r}: {small_time:.3f}s -> {large_time:.3f}s"
    )
    assert large_time < 10  # 200 KB of the worst input; about 1 s on a loaded machine


def test_the_public_list_is_linked_and_names_every_secret_word() -> None:
    from laika_host import redact

    doc = (REPO / "docs" / "REDACTION.md").read_text(encoding="utf-8")
    assert "docs/REDACTION.md" in (REPO / "README.md").read_text(encoding="utf-8")
    listed = set()
    for word in re.findall(r"`([a-z]+)(?:\(s\))?`", doc):
        listed |= {word, f"{word}s"}
    words = redact._SECRET_WORDS | redact._KEY_QUALIFIERS | set(redact._SECRET_ENDINGS)
    missing = words - listed
    assert not missing, f"docs/REDACTION.md does not list {sorted(missing)}"
