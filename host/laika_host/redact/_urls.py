"""Credentials in URLs: user info, secret-named query and fragment parameters.

User info ends at the last `@` before the host, as browsers parse it (RFC 3986), so a
password holding an `@` (`postgres://app:Tz4@Wq8L@db/x`) goes whole.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from ._names import MAX_NAME, is_secret_name
from ._spans import REDACTED
from ._values import two_classes

URL_IN_TEXT = re.compile(r"://[^\s<>\"'`)\]]{1,4096}")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
MAX_SCHEME = 16
# Everything up to the path, query or fragment (user info, host, port), written in text.
_AUTHORITY = re.compile(r"://(?P<authority>[^\s/?#\\<>\"`]+)")


def url_in_text(match: re.Match[str]) -> str:
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
    return clean_url(scheme + match.group(0), drop_user=False)[len(scheme) :]


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


def clean_url(url: str, *, drop_user: bool) -> str:
    """The URL's structure cleaned: query and fragment parameters, and (`drop_user`) any user
    info; in text, user info is left to `redact_userinfo`, which keeps plain user names."""
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
