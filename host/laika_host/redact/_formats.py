"""Keys that identify themselves by their format (`ghp_`, `sk-proj-`, `AKIA`, JWTs, ...).

Formats are matched on the text as a reader sees it: Markdown emphasis and code markers,
backslash escapes, soft hyphens and zero-width characters are read through, because a page
that writes `ghp_<b>x</b>` is captured as `ghp\\_**x**`. A match is mapped back to the
written text and replaced whole, markers included.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator

from ._spans import Span, replace_spans


def _mixed(value: str) -> bool:
    """Upper and lower case and a digit or symbol: a generated key, not a word or a hash."""
    body = value.removeprefix("sk-")
    return (
        any(c.islower() for c in body)
        and any(c.isupper() for c in body)
        and any(not c.isalpha() for c in body)
    )


def _aws_secret(value: str) -> bool:
    """A 40-character key, not a path: at most two slashes."""
    return _mixed(value) and value.count("/") <= 2


def _key(prefix: str, width: int, rest: str, before: str = r"[\w-]") -> re.Pattern[str]:
    """`prefix` (`width` characters) then `rest`, where `prefix` does not continue a longer
    word. The literal comes first so the regex engine can skip to it; the boundary is
    checked behind it."""
    return re.compile(f"{prefix}(?<!{before}.{{{width}}}){rest}")


# Every format below has a run of at least this many of these characters.
_KEY_RUN = re.compile(r"[A-Za-z0-9_./+=:-]{14}")
# (hints, pattern, value check). A pattern that starts with a literal is cheap to run (the
# engine skips to the literal); one that does not is tried only when one of its hints occurs.
_FORMATS: tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[str], bool] | None], ...] = (
    ((), _key("sk-", 3, r"(?:ant|or|proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"), None),
    ((), _key("sk-", 3, r"[A-Za-z0-9_-]{20,}"), _mixed),
    (("_live_",), _key(r"[srp]k_live_", 8, r"[A-Za-z0-9]{16,}"), None),
    (("_test_",), _key(r"[sr]k_test_", 8, r"[A-Za-z0-9]{16,}"), None),
    ((), _key("whsec_", 6, r"[A-Za-z0-9+/=]{16,}"), None),
    (
        (),
        _key(
            r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|ROA|PKA)",
            4,
            r"[A-Z0-9]{16}(?![A-Za-z0-9])",
            "[A-Za-z0-9]",
        ),
        None,
    ),
    (
        (),
        # a 40-character run of its own: no longer token around it (a dot only ends a sentence)
        re.compile(r"(?<![A-Za-z0-9/+.%_-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=%_-]|\.[A-Za-z0-9])"),
        _aws_secret,
    ),
    ((), _key(r"gh[pousr]_", 4, r"[A-Za-z0-9]{30,}"), None),
    ((), _key("github_pat_", 11, r"[A-Za-z0-9_]{22,}"), None),
    ((), _key("glpat-", 6, r"[A-Za-z0-9_-]{20,}"), None),
    ((), _key(r"xox[abposre]-", 5, r"[A-Za-z0-9-]{10,}"), None),
    ((), _key("xapp-", 5, r"[A-Za-z0-9-]{10,}"), None),
    (
        ("hooks.slack.com",),
        re.compile(r"(?<=hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,}"),
        None,
    ),
    (("/api/webhooks/",), re.compile(r"(?<=/api/webhooks/)[0-9]{5,}/[A-Za-z0-9_-]{16,}"), None),
    ((), _key("AIza", 4, r"[0-9A-Za-z_-]{30,}"), None),
    ((), _key(r"ya29\.", 5, r"[0-9A-Za-z_-]{20,}"), None),
    ((), _key("eyJ", 3, r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"), None),
    ((), _key("npm_", 4, r"[A-Za-z0-9]{30,}"), None),
    ((), _key("hf_", 3, r"[A-Za-z0-9]{30,}"), None),
    ((), _key("pypi-", 5, r"[A-Za-z0-9_-]{50,}"), None),
    ((), _key(r"SG\.", 3, r"[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"), None),
    ((), _key(r"shp(?:at|ca|pa|ss)_", 6, r"[a-fA-F0-9]{32}"), None),
    ((), _key(r"do[opr]_v1_", 7, r"[a-f0-9]{64}"), None),
    ((":AA",), re.compile(r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])"), None),
)

# What a reader does not see: emphasis, code and strike markers, a backslash escaping
# punctuation, soft hyphens, zero-width characters.
_MARKUP = re.compile(r"[*`~\u00ad\u200b\u200c\u200d\u2060\ufeff]+|\\(?=[!-/:-@\[-`{-~])")
_MARKERS = "*`~"
# Markup between two characters of a key: only then can flattening find a key not seen before
# (an escaped `_` counts after a key character or a mark: `e5f6\u00ad\\_g7h8`).
# It starts with the marker, so the engine skips to the (rare) marker characters.
_MARKS = "*`~\u00ad\u200b\u200c\u200d\u2060\ufeff"
_SPLIT = re.compile(
    f"[{_MARKS}](?<=[A-Za-z0-9_.-].)[{_MARKS}]*[A-Za-z0-9_.-]|\\\\_(?<=[A-Za-z0-9_.{_MARKS}-]..)"
)


def redact_formats(text: str) -> str:
    """`text` with every self-identifying key replaced, markup inside it or not."""
    flat = _MARKUP.sub("", text) if _SPLIT.search(text) else text
    if _KEY_RUN.search(flat) is None:
        return text  # no format below can match
    found = list(_matches(flat))
    if not found:
        return text
    if flat == text:
        return replace_spans(text, found)
    return replace_spans(text, _Unflatten(text).spans(found))


def _matches(flat: str) -> Iterator[Span]:
    for hints, pattern, check in _FORMATS:
        if hints and not any(hint in flat for hint in hints):
            continue
        for match in pattern.finditer(flat):
            if check is None or check(match.group(0)):
                yield match.span()


class _Unflatten:
    """Maps positions in the flattened text back to the written one."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._flat_at: list[int] = []  # where each kept piece starts, flattened
        self._text_at: list[int] = []  # and written
        kept = 0
        previous = 0
        for removed in _MARKUP.finditer(text):
            self._flat_at.append(kept)
            self._text_at.append(previous)
            kept += removed.start() - previous
            previous = removed.end()
        self._flat_at.append(kept)
        self._text_at.append(previous)

    def _position(self, flat: int) -> int:
        piece = bisect.bisect_right(self._flat_at, flat) - 1
        return self._text_at[piece] + flat - self._flat_at[piece]

    def spans(self, found: list[Span]) -> list[Span]:
        """Each span written, with the closing markers of markers it opened."""
        out = []
        for start, end in found:
            written_start, written_end = self._position(start), self._position(end - 1) + 1
            inside = self._text[written_start:written_end]
            for marker in _MARKERS:
                count = inside.count(marker)
                while count and self._text.startswith(marker, written_end):
                    written_end += 1
                    count -= 1
            out.append((written_start, written_end))
        return out
