"""Credentials in URLs: user info, secret-named query and fragment parameters, and secrets
written percent-encoded in the path, query or fragment.

User info ends at the last `@` before the host, as browsers parse it (RFC 3986), so a
password holding an `@` (`postgres://app:Tz4@Wq8L@db/x`) goes whole. A component holding
`%` escapes is decoded once and read by the text rules (`?q=Your%20API%20key:%20x`); only a
component they change is written again, encoded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote, unquote, unquote_plus, urlsplit, urlunsplit

from ._names import MAX_NAME, is_secret_name
from ._spans import REDACTED
from ._values import two_classes

# A URL in text ends at a space, quote, `)` or `]`; the `]` of `[redacted]` is part of it.
URL_IN_TEXT = re.compile(r"://(?:[^\s<>\"'`)\]]|(?<=\[redacted)\]){1,4096}")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
MAX_SCHEME = 16
# Everything up to the path, query or fragment (user info, host, port), written in text.
_AUTHORITY = re.compile(r"://(?P<authority>[^\s/?#\\<>\"`]+)")
# What stays unencoded when a redacted component is written again.
_SAFE = "/:@!$&'()*+,;=~[]"
_SAFE_IN_QUERY = "/?:@!$'()*+,;=~[]"
TextRules = Callable[[str], str]


def url_in_text(match: re.Match[str], rules: TextRules | None = None) -> str:
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
    return clean_url(scheme + match.group(0), drop_user=False, rules=rules)[len(scheme) :]


def redact_userinfo(text: str) -> str:
    """`://user:password@host` in text becomes `://[redacted]@host`; a plain user name
    (`ssh://git@host`) stays."""
    return _AUTHORITY.sub(_userinfo, text)


def _userinfo(match: re.Match[str]) -> str:
    authority = match.group("authority")
    info, at, host = authority.rpartition("@")
    if not at or info == REDACTED or (":" not in info and not two_classes(info)):
        return match.group(0)
    return f"://{REDACTED}@{host}"


def clean_url(url: str, *, drop_user: bool, rules: TextRules | None = None) -> str:
    """The URL's structure cleaned: query and fragment parameters, and (`drop_user`) any user
    info; in text, user info is left to `redact_userinfo`, which keeps plain user names.
    `rules` (the text rules) read percent-encoded components."""
    decode = rules is not None and ("%" in url or "+" in url)
    if "?" not in url and "#" not in url and "@" not in url and not decode:
        return url  # no query, fragment, user info or escapes: nothing structural to remove
    try:
        parts = urlsplit(url)
    except ValueError:
        return _strip_userinfo(url) if drop_user else url
    netloc = parts.netloc.rpartition("@")[2] if drop_user else parts.netloc
    path = _encoded(parts.path, unquote, rules) if decode and rules else parts.path
    query = drop_secret_params(parts.query, rules if decode else None)
    fragment = _redact_fragment(parts.fragment, rules if decode else None)
    if (netloc, path, query, fragment) == (parts.netloc, parts.path, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


def drop_secret_params(query: str, rules: TextRules | None = None) -> str:
    """A query string (`a=1&token=x`) without its secret-named parameters, others as written
    (with `rules`, a parameter they change when decoded is written again, redacted)."""
    if not query:
        return query
    pairs = query.split("&")
    kept = [pair for pair in pairs if not _secret_pair(pair)]
    if rules is not None:
        kept = [_encoded(pair, unquote_plus, rules, _SAFE_IN_QUERY) for pair in kept]
    return query if kept == pairs else "&".join(kept)


def _encoded(
    component: str, decode: Callable[[str], str], rules: TextRules, safe: str = _SAFE
) -> str:
    """`component` as written, unless the text rules change its decoded form."""
    decoded = decode(component)
    if decoded == component:
        return component
    redacted = rules(decoded)
    return component if redacted == decoded else quote(redacted, safe=safe)


def _secret_pair(pair: str) -> bool:
    """Whether `name=value` has a secret name (text with spaces is not a parameter name; a
    name without `=` holds nothing, and in text its value may follow: `?Password: x`)."""
    raw, equals, _ = pair.partition("=")
    if not equals or not 0 < len(raw) <= MAX_NAME or any(c.isspace() for c in raw):
        return False
    return is_secret_name(unquote_plus(raw), in_url=True)


def _redact_fragment(fragment: str, rules: TextRules | None) -> str:
    """`#access_token=...&state=...` and `#/callback?code=...` lose their secret parameters."""
    if rules is not None and "%" in fragment and not fragment.startswith(":~:"):
        fragment = _encoded(fragment, unquote, rules, _SAFE_IN_QUERY + "&")
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
