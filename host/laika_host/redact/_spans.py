"""The marker every secret is replaced with, and replacing several spans at once."""

from __future__ import annotations

REDACTED = "[redacted]"
Span = tuple[int, int]


def merge(spans: list[Span]) -> list[Span]:
    """`spans` sorted, overlapping or touching ones joined."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def replace_spans(text: str, spans: list[Span]) -> str:
    """`text` with each span (overlapping ones merged) replaced by one `[redacted]`."""
    out: list[str] = []
    position = 0
    for start, end in merge(spans):
        out += [text[position:start], REDACTED]
        position = end
    out.append(text[position:])
    return "".join(out)
