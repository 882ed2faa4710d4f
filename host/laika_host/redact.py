"""The one place that finds secrets in what Laika stores, logs or sends, and replaces them.

Pages, models and the extension are untrusted, and a key shown on a page (or echoed by a
model) must not reach the database, a log or a model. Three entry points:

- `redact_text`: free text (Markdown, titles, answers, log lines): self-identifying key
  formats, private key blocks, header lines, URL user info and `name=value`-style settings
  whose name says "secret" (`is_secret_name`).
- `redact_url`: a URL: no user info, no secret-named query or fragment parameters, and no
  key in the path.
- `redact_value`: parsed JSON: secret-named keys lose their value, URLs and text as above.

Every pattern runs in linear time: each is anchored by a literal or a boundary look-behind
(a run of the same characters is entered once), quantifiers are bounded or never nested, and
cheap substring tests skip patterns whose hint is absent. The public list is docs/REDACTION.md.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

REDACTED = "[redacted]"

# --- names -------------------------------------------------------------------------------

_SECRET_WORDS = frozenset(
    {"token", "secret", "secrets", "password", "passwd", "pwd", "passphrase", "passcode"}
    | {"signature", "sig", "credential", "credentials", "creds", "jwt", "bearer", "hmac"}
    | {"session", "sessionid", "sessid", "sid", "auth", "authorization", "cookie", "otp"}
    | {"csrf", "xsrf", "apikey", "privatekey", "secretkey", "accesskey", "totp"}
)
_SECRET_ENDINGS = ("token", "secret", "password", "passwd", "passphrase", "sessionid", "sessid")
_KEY_QUALIFIERS = frozenset(
    {"api", "access", "private", "secret", "client", "signing", "master", "encryption"}
    | {"subscription", "app", "consumer", "auth", "session", "license", "account", "service"}
    | {"deploy", "ssh", "gpg", "pgp", "webhook", "server", "admin", "functions", "x"}
)
# Names that are secrets in a query string (`?key=`, `?code=`) but ordinary words in prose.
_URL_ONLY_NAMES = frozenset({"key", "code", "pass", "ticket"})
# Names strong enough that `name: value` in prose is a secret ("Session: 3" is not).
_STRONG_WORDS = frozenset(
    {"token", "secret", "secrets", "password", "passwd", "pwd", "passphrase", "passcode"}
    | {"credential", "credentials", "creds", "jwt", "apikey", "privatekey", "secretkey"}
    | {"accesskey", "key"}
)
_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
MAX_NAME = 64


def name_words(name: str) -> list[str]:
    """`accessToken`, `X-Goog-Signature`, `api\\_key` -> their lowercase words."""
    return [part.lower() for part in _NAME_PART.findall(name[:MAX_NAME])]


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str, *, in_url: bool = False) -> bool:
    """Whether a parameter, field or header called `name` holds a secret.

    Names are split into words (camelCase, `_`, `-`, `.`), so `accessToken`, `private_token`,
    `X-Amz-Signature` and `jwt` match while `keyboard`, `tokens` and `sort` do not. `in_url`
    adds names that are only secrets in a query string (`key`, `code`, `ticket`).
    """
    words = name_words(name)
    if not words:
        return False
    joined = "".join(words)  # `PassWord`, `AuThOrIzAtIoN`
    if in_url and joined in _URL_ONLY_NAMES:
        return True
    return any(_secret_word(word, words) for word in (*words, joined))


def _secret_word(word: str, words: list[str]) -> bool:
    if word in _SECRET_WORDS or word.endswith(_SECRET_ENDINGS):
        return True
    if word == "key":
        return any(other in _KEY_QUALIFIERS for other in words)
    return word.endswith("key") and word[:-3] in _KEY_QUALIFIERS


def _strong_name(name: str) -> bool:
    """A secret name that is never a plain word in prose (`password`, `api_key`, not `auth`)."""
    return any(w in _STRONG_WORDS or w.endswith(_SECRET_ENDINGS) for w in name_words(name))


# --- text --------------------------------------------------------------------------------

# `name=`, `name: `, `"name": `: found from the operator backwards (operators are rare in
# prose, word starts are not), with Markdown emphasis or escapes allowed around the name.
_OPERATOR = re.compile(r"[:=]")
_AROUND_NAME = "\"'*_`\\"
_AFTER_OPERATOR = "*_`"
MAX_PAD = 4
_BARE_VALUE = re.compile(r"[^\s\"'<>&;,)\]}]{1,512}")
_COOKIE = re.compile(
    r"(?i)\b((?:set-)?cookie[ \t]*:[ \t]*)[\w.%-]+=[^\s;]+(?:;[ \t]*[\w.%-]+=[^\s;]*)*"
)
_AUTHORIZATION = re.compile(
    r"(?i)\b((?:proxy-)?authorization[ \t]*:[ \t]*)"
    r"(?:bearer|basic|token|digest|negotiate|ntlm|aws4-hmac-sha256)[ \t]+[^\s,]+(?:,[ \t]*[^\s,]+)*"
)
_BEARER = re.compile(r"(?i)(?<![\w-])bearer[ \t]+(?P<value>[A-Za-z0-9._~+/=-]{8,})")
_URL_IN_TEXT = re.compile(r"://[^\s<>\"'`)\]]{1,4096}")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
MAX_SCHEME = 16
_USERINFO = re.compile(r"://(?P<info>[^\s/?#@<>()\[\]\"'`]{1,256})@")
_PEM_BEGIN = "-----BEGIN "
_PEM_END = "-----END "
_PEM_MAX = 16_384
LINE_TAIL = 16
MAX_PASSES = 4


def _looks_random(value: str) -> bool:
    """Two of lowercase, uppercase and digits: what generated keys look like, not words."""
    kinds = (
        any(c.islower() for c in value),
        any(c.isupper() for c in value[1:]),
        any(c.isdigit() for c in value),
    )
    return sum(kinds) >= 2


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
        re.compile(r"(?<![A-Za-z0-9/+.%_-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=.%_-])"),
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
    ((), _key(r"SG\.", 3, r"[\w-]{16,}\.[\w-]{16,}"), None),
    (
        (),
        _key(r"shp(?:at|ca|pa|ss)_", 6, r"[a-fA-F0-9]{32}"),
        None,
    ),
    ((), _key(r"do[opr]_v1_", 7, r"[a-f0-9]{64}"), None),
    ((":AA",), re.compile(r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])"), None),
)


def redact_text(text: str) -> str:
    """`text` with every secret it shows replaced by `[redacted]` (idempotent).

    A replacement can expose another secret (a key glued to `JWT=x` hid the name), so passes
    repeat while they change something; clean text takes one pass.
    """
    if _CLEAN.holds(text):
        return text
    for _ in range(MAX_PASSES):
        redacted = _redact_once(text)
        if redacted == text:
            _CLEAN.add(text)  # a pass found nothing more: known clean
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
        self._texts: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def holds(self, text: str) -> bool:
        if not self.MIN_CHARS <= len(text) <= self.MAX_CHARS:
            return False
        with self._lock:
            return text in self._texts

    def add(self, text: str) -> None:
        if not self.MIN_CHARS <= len(text) <= self.MAX_CHARS:
            return
        with self._lock:
            self._texts[text] = None
            self._texts.move_to_end(text)
            while len(self._texts) > self.ENTRIES:
                self._texts.popitem(last=False)


_CLEAN = _KnownClean()


def _redact_once(text: str) -> str:
    if not text:
        return text
    low = text.lower()  # one pass; each rule below runs only when its word occurs
    if "://" in text:
        text = _URL_IN_TEXT.sub(_url_in_text, text)
        if "@" in text:
            text = _USERINFO.sub(_userinfo, text)
    if "private key" in low:
        text = _redact_pem(text)
    if "cookie" in low:
        text = _COOKIE.sub(lambda m: m.group(1) + REDACTED, text)
    if "authorization" in low:
        text = _AUTHORIZATION.sub(lambda m: m.group(1) + REDACTED, text)
    if _KEY_RUN.search(text) is not None:  # else no format below can match
        text = _redact_formats(text)
    if "bearer" in low:
        text = _BEARER.sub(_bearer, text)
    if "=" in text or ":" in text:
        text = _redact_assignments(text)
    return text


def _redact_formats(text: str) -> str:
    for hints, pattern, check in _FORMATS:
        if not hints or any(hint in text for hint in hints):
            text = pattern.sub(REDACTED if check is None else _checked(check), text)
    return text


def _url_in_text(match: re.Match[str]) -> str:
    """A URL found by its `://`: the scheme before it is read back, and left as written."""
    start = match.start()
    scheme_at = start
    while scheme_at > start - MAX_SCHEME and scheme_at > 0:
        if match.string[scheme_at - 1] not in _SCHEME_CHARS:
            break
        scheme_at -= 1
    if scheme_at == start:
        return match.group(0)
    scheme = match.string[scheme_at:start]
    return _clean_url(scheme + match.group(0), drop_user=False)[len(scheme) :]


@dataclass(frozen=True)
class _Head:
    """`name op` before a value: where the value starts and how the operator was spaced."""

    name: str
    op: str
    value_at: int
    spaced_before: bool
    spaced_after: bool


def _redact_assignments(text: str) -> str:
    """Replace the value after every secret name; other names are skipped, not consumed, so
    `user:password=x` still finds `password`."""
    out: list[str] = []
    position = search_at = 0
    while (operator := _OPERATOR.search(text, search_at)) is not None:
        search_at = operator.end()
        if text.startswith("//", search_at):
            continue  # a URL's scheme
        head = _head(text, operator.start())
        if head is None or not is_secret_name(head.name) or _dangling(head):
            continue
        value = _value_span(text, head.value_at)
        if value is None or not _value_is_secret(head, text, value):
            continue
        out += [text[position : value[0]], REDACTED]
        position = search_at = value[1]
    out.append(text[position:])
    return "".join(out)


def _head(text: str, op_at: int) -> _Head | None:
    """The name written before the operator at `op_at` (None when there is none)."""
    end = _skip_back(text, op_at, " \t", MAX_PAD)
    spaced_before = end < op_at
    end = _skip_back(text, end, _AROUND_NAME, 6)
    start = end
    while start > 0 and end - start <= MAX_NAME and _is_name_char(text[start - 1]):
        start -= 1
    if end - start > MAX_NAME:
        return None  # a run too long to be a name
    name = text[start:end].lstrip("-.\\")  # `--password=` names `password`
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return None
    at = op_at + 1
    value_at = _skip(text, at, " \t", MAX_PAD)
    spaced_after = value_at > at
    return _Head(
        name, text[op_at], _skip(text, value_at, _AFTER_OPERATOR, 4), spaced_before, spaced_after
    )


def _is_name_char(char: str) -> bool:
    return char.isalnum() or char in "_\\.-"


def _skip_back(text: str, at: int, chars: str, limit: int) -> int:
    stop = max(0, at - limit)
    while at > stop and text[at - 1] in chars:
        at -= 1
    return at


def _skip(text: str, at: int, chars: str, limit: int) -> int:
    stop = min(len(text), at + limit)
    while at < stop and text[at] in chars:
        at += 1
    return at


def _dangling(head: _Head) -> bool:
    """`the token= field`: an `=` with space after it but not before it ends a word."""
    return head.op == "=" and head.spaced_after and not head.spaced_before


def _value_span(text: str, at: int) -> tuple[int, int] | None:
    """Where the value starting at `at` lies: inside its quotes, or a run without spaces
    (closing punctuation left out); a value already redacted is its marker."""
    if text.startswith(REDACTED, at):
        return (at, at + len(REDACTED))
    if at < len(text) and text[at] in "\"'":
        close = text.find(text[at], at + 1, at + 514)
        newline = text.find("\n", at + 1, at + 514)
        stop = close if close >= 0 and (newline < 0 or close < newline) else -1
        return (at + 1, stop) if stop > at + 1 else None
    bare = _BARE_VALUE.match(text, at)
    if bare is None:
        return None
    value = bare.group(0).rstrip(".:")
    return (at, at + len(value)) if value else None


def _value_is_secret(head: _Head, text: str, span: tuple[int, int]) -> bool:
    """After `=` or in quotes any value is. `Password: hunter2` is a secret; `Password:
    required to enter` and `Session: 3` are prose: after a colon a strong name takes a value
    that ends its line or is not a plain word, any other secret name a random-looking one."""
    value = text[span[0] : span[1]]
    quoted = span[0] > 0 and text[span[0] - 1] in "\"'"
    if head.op == "=" or quoted or value == REDACTED:
        return True
    if _strong_name(head.name):
        return not value.isalpha() or _ends_line(text, span[1])
    return len(value) >= 8 and _looks_random(value)


def _ends_line(text: str, at: int) -> bool:
    """Only closing punctuation or emphasis follows `at` on its line."""
    window = text[at : at + LINE_TAIL]
    line, newline, _ = window.partition("\n")
    if not newline and at + LINE_TAIL < len(text):
        return False
    return not line.strip(" \t\r.,;:!?)*_`\"'")


def _bearer(match: re.Match[str]) -> str:
    value = match.group("value")
    core = value.rstrip(".,;:")
    if not _looks_random(core) and len(core) < 32:
        return match.group(0)
    return match.group(0)[: match.start("value") - match.start()] + REDACTED + value[len(core) :]


def _userinfo(match: re.Match[str]) -> str:
    info = match.group("info")
    if ":" not in info and not _looks_random(info):
        return match.group(0)  # a plain user name (`ssh://git@host`) is no secret
    return f"://{REDACTED}@"


def _checked(check: Callable[[str], bool]) -> Callable[[re.Match[str]], str]:
    return lambda match: REDACTED if check(match.group(0)) else match.group(0)


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


# --- URLs --------------------------------------------------------------------------------


def redact_url(url: str) -> str:
    """`url` without user info, secret-named query or fragment parameters, or keys in it.

    Works on any string, including URLs Python cannot parse (a bad port or IPv6 literal):
    nothing is kept just because the URL is malformed. Unchanged URLs keep their exact form.
    """
    for _ in range(MAX_PASSES):
        redacted = redact_text(_clean_url(url, drop_user=True))
        if redacted == url:
            break
        url = redacted
    return url


def _clean_url(url: str, *, drop_user: bool) -> str:
    """The URL's structure cleaned: query and fragment parameters, and (`drop_user`) any user
    info; in text, user info is left to `_USERINFO`, which keeps plain user names."""
    if "?" not in url and "#" not in url and "@" not in url:
        return url  # no query, fragment or user info: nothing structural to remove
    try:
        parts = urlsplit(url)
    except ValueError:
        return _strip_userinfo(url) if drop_user else url
    netloc = parts.netloc.rpartition("@")[2] if drop_user else parts.netloc
    query = drop_secret_params(parts.query)
    fragment = _redact_fragment(parts.fragment)
    if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def drop_secret_params(query: str) -> str:
    """A query string (`a=1&token=x`) without its secret-named parameters, others as written."""
    if not query:
        return query
    pairs = query.split("&")
    kept = [pair for pair in pairs if not _secret_pair(pair)]
    return query if len(kept) == len(pairs) else "&".join(kept)


def _secret_pair(pair: str) -> bool:
    """Whether `name=value` has a secret name (text with spaces is not a parameter name)."""
    raw = pair.split("=", 1)[0]
    if not 0 < len(raw) <= MAX_NAME or any(c.isspace() for c in raw):
        return False
    return is_secret_name(unquote_plus(raw), in_url=True)


def _redact_fragment(fragment: str) -> str:
    """`#access_token=...&state=...` and `#/callback?code=...` lose their secret parameters."""
    if "=" not in fragment or fragment.startswith(":~:"):
        return fragment
    route, mark, params = fragment.partition("?")
    route = drop_secret_params(route)
    if not mark:
        return route
    kept = drop_secret_params(params)
    return f"{route}?{kept}" if kept else route


def _strip_userinfo(url: str) -> str:
    scheme, mark, rest = url.partition("://")
    if not mark:
        return url
    authority_end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    at = rest.rfind("@", 0, authority_end)
    return url if at < 0 else f"{scheme}://{rest[at + 1 :]}"


# --- structured values -------------------------------------------------------------------


def redact_value(value: Any) -> Any:
    """A copy of parsed JSON with secret-named keys' values and every secret in strings
    replaced; strings that are URLs go through `redact_url`."""
    if isinstance(value, dict):
        return {key: _redact_item(str(key), item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(item) for item in value]
    if isinstance(value, str):
        return redact_string(value)
    return value


def _redact_item(key: str, item: Any) -> Any:
    if is_secret_name(key) and isinstance(item, str | dict | list | tuple) and item:
        return REDACTED
    return redact_value(item)


def redact_string(value: str) -> str:
    """One string of unknown kind: a URL is redacted as a URL, anything else as text."""
    head = value[:16].lower()
    if "://" in head or head.startswith(("mailto:", "javascript:", "data:")):
        return redact_url(value)
    return redact_text(value)
