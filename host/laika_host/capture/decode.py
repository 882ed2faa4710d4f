"""Bytes to text, the way a browser would: BOM, then UTF-8 if it is valid, then the declared
charset, then detection. Pages that declare Latin-1 but are really UTF-8 (common) come out right,
and ISO-8859-1 is read as Windows-1252 as the HTML standard says."""

from __future__ import annotations

import codecs
import re
from urllib.parse import urlsplit

from .errors import CaptureError

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# a tag's attributes never reach past the next `<`, so no two searches scan the same bytes
_DECLARED = re.compile(rb"""<meta[^<>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_DECLARED = re.compile(rb"""<\?xml[^<>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""", re.I)
_LATIN_SINGLE_BYTE = {
    "cp1250", "cp1252", "windows1250", "windows1252", "iso88591", "iso88592", "iso885915",
    "latin1", "latin2", "cp1257", "iso885913", "maclatin2", "macroman", "cp850", "cp437",
}  # fmt: skip
_CENTRAL_EUROPEAN_TLDS = {"pl", "cz", "sk", "hu", "si", "hr", "ro", "ba", "rs"}
_WINDOWS_1252_ALIASES = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "us-ascii", "ascii"}


def decode_html(raw: bytes, url: str | None = None) -> tuple[str, str]:
    """(text, encoding used). Raises CaptureError for input that is not text at all."""
    if not raw.strip():
        raise CaptureError("empty", "the page is empty: nothing to capture")
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return raw.decode(encoding, "replace"), encoding
    if b"\x00" in raw[:4096]:
        raise CaptureError(
            "binary", "this looks like a binary file, not an HTML page (it contains NUL bytes)"
        )
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    declared = _declared(raw[:16384])
    if declared:
        return raw.decode(declared, "replace"), declared
    return _detect(raw, url)


def _declared(head: bytes) -> str | None:
    match = _DECLARED.search(head) or _XML_DECLARED.search(head)
    if not match:
        return None
    name = match.group(1).decode("ascii", "ignore").lower()
    if name in _WINDOWS_1252_ALIASES:
        return "cp1252"
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _detect(raw: bytes, url: str | None) -> tuple[str, str]:
    """Undeclared and not UTF-8: detection, with the tie between the Latin code pages broken
    the way browsers do it, by where the page comes from (its top-level domain)."""
    from charset_normalizer import from_bytes

    best = from_bytes(raw[:200_000]).best()
    encoding = best.encoding if best is not None and best.encoding else "cp1252"
    if encoding.replace("_", "").replace("-", "").lower() in _LATIN_SINGLE_BYTE:
        encoding = "cp1250" if _tld(url) in _CENTRAL_EUROPEAN_TLDS else "cp1252"
    return raw.decode(encoding, "replace"), encoding


def _tld(url: str | None) -> str:
    host = urlsplit(url).hostname if url else None
    return host.rsplit(".", 1)[-1].lower() if host else ""
