"""Secret-looking text is replaced wherever we store, log or send text; prose is left alone."""

from __future__ import annotations

import pytest

from laika_host.capture import capture_html
from laika_host.redact import redact_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Cookie: sessionid=abc123456789; csrf=zz then prose", "Cookie: [redacted] then prose"),
        ("Authorization: Bearer abcdefghijkl", "Authorization: [redacted]"),
        ("x-api-key: 12345abcdef", "x-api-key: [redacted]"),
        ("see ?session=SECRETVALUE99&x=1", "see ?session=[redacted]&x=1"),
        ("key sk-ant-" + "A" * 30 + " here", "key [redacted] here"),
        ("google AIza" + "b" * 35, "google [redacted]"),
    ],
)
def test_secrets_are_replaced(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize(
    "prose",
    [
        "Cookie: a recipe for chocolate chip cookies",
        "Authorization: required to enter",
        "the token= field",
        "Bearer of bad news",
    ],
)
def test_prose_that_only_looks_similar_is_kept(prose: str) -> None:
    assert redact_text(prose) == prose


def test_a_captured_page_never_keeps_a_secret_it_shows() -> None:
    page = (
        "<html><body><article><h1>Debugging</h1><p>Our request sent Cookie: sid=Zx81kk29aa91 "
        "and the key sk-proj-" + "Q" * 24 + ".</p><p>Plenty of other words here to read.</p>"
        "</article></body></html>"
    )
    capture = capture_html(page.encode(), "https://dev.test/post?access_token=ABCDEF123456")
    for secret in ("Zx81kk29aa91", "Q" * 24, "ABCDEF123456"):
        assert secret not in capture.markdown
        assert secret not in capture.text
        assert secret not in (capture.url or "")
