"""Free text: every rule in turn, repeated until nothing changes, with clean long texts
remembered so that a second look (the store after capture) is a lookup."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable

from ._extra import extra_names, pinned
from ._formats import redact_formats
from ._settings import redact_settings
from ._spans import REDACTED
from ._urls import URL_IN_TEXT, redact_userinfo, url_in_text
from ._values import bearer_token

_COOKIE = re.compile(
    r"(?i)\b((?:set-)?cookie[ \t]*:[ \t]*)[\w.%-]+=[^\s;]+(?:;[ \t]*[\w.%-]+=[^\s;]*)*"
)
_AUTHORIZATION = re.compile(
    r"(?i)\b((?:proxy-)?authorization[ \t]*:[ \t]*)"
    r"(?:bearer|basic|token|digest|negotiate|ntlm|aws4-hmac-sha256)[ \t]+[^\s,]+(?:,[ \t]*[^\s,]+)*"
)
_BEARER = re.compile(r"(?i)(?<![\w-])bearer[ \t]+(?P<value>[A-Za-z0-9._~+/=-]{8,})")
_PEM_BEGIN = "-----BEGIN "
_PEM_END = "-----END "
_PEM_MAX = 16_384
MAX_PASSES = 4


@pinned
def redact_text(text: str) -> str:
    """`text` with every secret it shows replaced by `[redacted]` (idempotent).

    A replacement can expose another secret (a key glued to `JWT=x` hid the name), so passes
    repeat while they change something; clean text takes one pass.
    """
    if _CLEAN.holds(text):
        return text
    redacted = _passes(text, decode=True)
    if redacted == text:
        _CLEAN.add(text)  # nothing found: known clean
    return redacted


_Key = tuple[frozenset[str], str]


def _key(text: str) -> _Key:
    """What the caches below remember `text` under: with the user's extra secret names in
    effect, so that a text clean before a name was added is read again after."""
    return extra_names().joined, text


def redact_decoded(text: str) -> str:
    """The text rules for a URL component decoded once: not decoded again (`%2525...`).

    Remembered, with the result as its own answer: the next pass over the text decodes the
    component redacted and finds it known instead of reading it again."""
    return _DECODED.get(text, _passes)


class _Remembered:
    """A small least-recently-used map from a decoded component to its redacted form."""

    ENTRIES = 256

    def __init__(self) -> None:
        self._results: OrderedDict[_Key, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str, compute: Callable[..., str]) -> str:
        key = _key(text)
        with self._lock:
            if (known := self._results.get(key)) is not None:
                self._results.move_to_end(key)
                return known
        result = compute(text, decode=False)
        with self._lock:
            self._results[key] = self._results[(key[0], result)] = result
            while len(self._results) > self.ENTRIES:
                self._results.popitem(last=False)
        return result


def _passes(text: str, *, decode: bool) -> str:
    for _ in range(MAX_PASSES):
        redacted = _redact_once(text, decode=decode)
        if redacted == text:
            break
        text = redacted
    return text


class _KnownClean:
    """The last few long texts known to hold no secret (what `redact_text` returned).

    Capture redacts a page's Markdown and the store checks it again as it writes the row;
    remembering the result makes that second check a dictionary lookup instead of a pass
    over the page (inside the write transaction, on the event loop).
    """

    MIN_CHARS = 1024
    MAX_CHARS = 200_000
    ENTRIES = 32

    def __init__(self) -> None:
        self._texts: OrderedDict[_Key, None] = OrderedDict()
        self._lock = threading.Lock()

    def holds(self, text: str) -> bool:
        if not self.MIN_CHARS <= len(text) <= self.MAX_CHARS:
            return False
        with self._lock:
            return _key(text) in self._texts

    def add(self, text: str) -> None:
        if not self.MIN_CHARS <= len(text) <= self.MAX_CHARS:
            return
        key = _key(text)
        with self._lock:
            self._texts[key] = None
            self._texts.move_to_end(key)
            while len(self._texts) > self.ENTRIES:
                self._texts.popitem(last=False)


_CLEAN = _KnownClean()
_DECODED = _Remembered()


def _redact_once(text: str, *, decode: bool) -> str:
    if not text:
        return text
    low = text.lower()  # one pass; each rule below runs only when its word occurs
    if "://" in text:
        rules = redact_decoded if decode else None
        text = URL_IN_TEXT.sub(lambda match: url_in_text(match, rules), text)
        if "@" in text:
            text = redact_userinfo(text)
    if "private key" in low:
        text = _redact_pem(text)
    if "cookie" in low:
        text = _COOKIE.sub(lambda m: m.group(1) + REDACTED, text)
    if "authorization" in low:
        text = _AUTHORIZATION.sub(lambda m: m.group(1) + REDACTED, text)
    text = redact_formats(text)
    if "bearer" in low:
        text = _BEARER.sub(_bearer, text)
    return redact_settings(text)


def _bearer(match: re.Match[str]) -> str:
    value = match.group("value")
    core = value.rstrip(".,;:")
    if not bearer_token(core):
        return match.group(0)
    return match.group(0)[: match.start("value") - match.start()] + REDACTED + value[len(core) :]


def _redact_pem(text: str) -> str:
    """Private key blocks, BEGIN to END (or, when the end is cut off, to the next blank line)."""
    out: list[str] = []
    position = search_at = 0
    while (begin := text.find(_PEM_BEGIN, search_at)) >= 0:
        search_at = begin + len(_PEM_BEGIN)
        header_end = text.find("-----", search_at, search_at + 80)
        if header_end < 0 or "PRIVATE KEY" not in text[search_at:header_end]:
            continue
        body = header_end + 5
        if text.startswith(REDACTED, body):
            continue  # redacted before
        out += [text[position:body], REDACTED]
        position = search_at = _pem_end(text, body)
    out.append(text[position:])
    return "".join(out)


def _pem_end(text: str, body: int) -> int:
    """Where the key block whose body starts at `body` ends (its END line included)."""
    end = text.find(_PEM_END, body, body + _PEM_MAX)
    if end >= 0:
        closing = text.find("-----", end + len(_PEM_END), end + 120)
        if closing >= 0:
            return closing + 5
        line_end = text.find("\n", end)
        return line_end if line_end >= 0 else len(text)
    blank = text.find("\n\n", body, body + _PEM_MAX)
    return blank if blank >= 0 else min(len(text), body + _PEM_MAX)
