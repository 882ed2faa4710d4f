"""Real PDF files written by hand for the tests: text in a standard font at given sizes and
places, metadata, image-only pages, and hostile shapes (a compression bomb, deep nesting,
a huge page tree). Each is a valid PDF 1.4 file with a correct cross-reference table."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

A4_HEIGHT = 842


@dataclass(frozen=True)
class Text:
    """One line of text: `size` points, baseline at (x, y)."""

    text: str
    size: float = 11
    x: float = 72
    y: float = 0


def pdf_string(text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("latin-1") + b")"


def content_stream(lines: Sequence[Text]) -> bytes:
    ops = [
        b"BT /F1 %g Tf 1 0 0 1 %g %g Tm %s Tj ET" % (t.size, t.x, t.y, pdf_string(t.text))
        for t in lines
    ]
    return b"\n".join(ops)


def flowed(
    blocks: Sequence[tuple[float, str]], *, width: int = 80, top: float = 780
) -> list[list[Text]]:
    """Blocks (size, text) laid out as a word processor would: wrapped lines at 1.2x size,
    an extra half line between blocks, a new page when one is full."""
    pages: list[list[Text]] = [[]]
    y = top
    for size, text in blocks:
        chars = max(20, int(width * 11 / size))
        lines = _wrap(text, chars)
        if y - 1.2 * size * len(lines) < 60 and pages[-1]:
            pages.append([])
            y = top
        for line in lines:
            pages[-1].append(Text(line, size, 72, y))
            y -= 1.2 * size
        y -= 0.6 * size
    return pages


def _wrap(text: str, chars: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > chars:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return [*lines, current] if current else lines


def pdf(
    pages: Sequence[Sequence[Text] | bytes],
    *,
    title: str | None = None,
    author: str | None = None,
    compress: bool = True,
) -> bytes:
    """A PDF with one page per item: lines of text, or a raw content stream."""
    objects: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree (filled in below)
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")  # 3
    kids: list[int] = []
    for page in pages:
        body = page if isinstance(page, bytes) else content_stream(page)
        objects.append(_stream(body, compress=compress))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (len(objects))
        )
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids),
    )
    info = b""
    if title is not None or author is not None:
        fields = [b"/Title " + pdf_string(title)] if title is not None else []
        fields += [b"/Author " + pdf_string(author)] if author is not None else []
        objects.append(b"<< " + b" ".join(fields) + b" /CreationDate (D:20240315120000Z) >>")
        info = b" /Info %d 0 R" % len(objects)
    return assemble(objects, trailer_extra=info)


def _stream(body: bytes, *, compress: bool) -> bytes:
    if compress:
        packed = zlib.compress(body)
        return b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (
            len(packed),
            packed,
        )
    return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(body), body)


def assemble(objects: Sequence[bytes], *, trailer_extra: bytes = b"") -> bytes:
    """Objects 1..n (object 1 the catalog) as a PDF file with its xref table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        trailer_extra,
        xref,
    )
    return bytes(out)


def image_only_pdf(pages: int = 2) -> bytes:
    """Pages that draw only shapes: what a scan without OCR looks like to a text reader."""
    return pdf([b"0.5 g 72 72 400 600 re f" for _ in range(pages)])


def compression_bomb(inflated: int = 1 << 30) -> bytes:
    """One page whose content stream inflates to `inflated` bytes of spaces (1 GiB: ~1 MB)."""
    packer = zlib.compressobj(9)
    block = b" " * (1 << 20)
    packed = b"".join(packer.compress(block) for _ in range(inflated // len(block)))
    packed += packer.compress(b"BT /F1 11 Tf 72 700 Td (after the bomb) Tj ET") + packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed),
    ]
    return assemble(objects)


def deeply_nested(depth: int = 100_000) -> bytes:
    """A page whose resources hold an array nested `depth` levels deep, and a content stream
    with the same nesting as an operand."""
    nested = b"[" * depth + b"]" * depth
    stream = b"BT /F1 11 Tf 72 700 Td (deep) Tj ET\n" + nested + b" pop"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Deep " + nested + b" /Contents 5 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    return assemble(objects)


def many_pages(count: int) -> bytes:
    """`count` pages of one short line each (a huge page count in a small file)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(count)), count),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for number in range(1, count + 1):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (len(objects) + 2)
        )
        stream = b"BT /F1 11 Tf 72 700 Td (Page %d of the long report.) Tj ET" % number
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    return assemble(objects)
