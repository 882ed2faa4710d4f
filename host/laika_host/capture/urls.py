"""URLs: absolute links, credential stripping, and the normalized form used for dedupe.

Normalization lets "the same page" collapse to one source (Karakeep users saw 12,844 bookmarks
become 2,257 once this was done): lowercase scheme and host, no default port, no fragment, one
trailing-slash form, sorted query, tracking and credential-like parameters dropped.
Credentials are also removed from every URL we store or show (`laika_host.redact`).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from ..redact import is_secret_name, redact_url

TRACKING_PARAMS = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "twclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "rb_clickid",
        "s_cid",
        "ref_src",
        "spm",
    }
)
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "ga_", "hsa_")
DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_C0_OR_SPACE = "".join(chr(code) for code in range(0x21))
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def is_credential_param(name: str) -> bool:
    """A query parameter that carries a secret (`token`, `accessToken`, `X-Amz-Signature`,
    `key`, ...): the rule is `laika_host.redact.is_secret_name`."""
    return is_secret_name(name, in_url=True)


def is_tracking_param(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_PARAMS or lowered.startswith(TRACKING_PREFIXES)


def absolute_url(href: str, base: str | None) -> str | None:
    """`href` made absolute against `base`; None for empty, `javascript:` and the like.

    Read the way browsers read an href: C0 controls and spaces at the ends dropped, tabs and
    newlines inside removed, other control characters percent-encoded (lxml refuses to store
    them in an attribute, and a page must not be able to break its own capture).
    """
    href = _TAB_OR_NEWLINE.sub("", href.strip(_C0_OR_SPACE))
    if _CONTROL.search(href):
        href = _CONTROL.sub(lambda match: f"%{ord(match.group()):02X}", href)
    if not href or href.startswith("#"):
        return None
    if not _SCHEME.match(href) and base:
        href = urljoin(base, href)
    return href


def strip_credentials(url: str) -> str:
    """The URL without user info and without secrets in its query, fragment or path."""
    return redact_url(url)


def normalize_url(url: str) -> str:
    """The form two URLs of the same page share (for dedupe, never shown as the link)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    try:
        port = parts.port
    except ValueError:  # "host:not-a-port": keep what was written, lowercased
        port = None
        host = parts.netloc.rpartition("@")[2].lower()
    netloc = host if port in (None, DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    path = re.sub(r"/{2,}", "/", parts.path) or "/"
    if len(path) > 1:
        path = path.rstrip("/")
    query = sorted(
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not is_tracking_param(k) and not is_credential_param(k)
    )
    return urlunsplit((scheme, netloc, path, urlencode(query, doseq=True), ""))


def is_web_url(url: str) -> bool:
    """An absolute http(s) URL with a host (and, if any, a numeric port)."""
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def same_site(page: str, other: str) -> bool:
    """Whether `other` may stand for `page` (a canonical URL the page claims): both http(s),
    the same host ignoring case, a trailing dot and a leading `www.`, and the same non-default
    port (http and https count as one site). A
    page cannot claim another site's address, which would file it under that site's source."""
    try:
        a, b = urlsplit(page), urlsplit(other)
        ports = [_explicit_port(a.port, a.scheme), _explicit_port(b.port, b.scheme)]
    except ValueError:
        return False
    if not (is_web_url(page) and is_web_url(other)) or ports[0] != ports[1]:
        return False
    return _site_host(a.hostname) == _site_host(b.hostname) != ""


def _site_host(host: str | None) -> str:
    host = (host or "").lower().rstrip(".")
    return host.removeprefix("www.")


def _explicit_port(port: int | None, scheme: str) -> int | None:
    return None if port == DEFAULT_PORTS.get(scheme.lower()) else port
