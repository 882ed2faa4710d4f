"""Bytes to text, the way a browser would: BOM, then UTF-8 if it is valid, then the declared
charset, then detection. Pages that declare Latin-1 but are really UTF-8 (common) come out right,
and ISO-8859-1 is read as Windows-1252 as the HTML standard says."""

from __future__ import annotations

import codecs
import re

from .errors import CaptureError

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_DECLARED = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_DECLARED = re.compile(rb"""<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""", re.I)
_WINDOWS_1252_ALIASES = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "us-ascii", "ascii"}


def decode_html(raw: bytes) -> tuple[str, str]:
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
    return _detect(raw)


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


def _detect(raw: bytes) -> tuple[str, str]:
    from charset_normalizer import from_bytes

    best = from_bytes(raw[:200_000]).best()
    if best is not None and best.encoding:
        return raw.decode(best.encoding, "replace"), best.encoding
    return raw.decode("cp1252", "replace"), "cp1252"
