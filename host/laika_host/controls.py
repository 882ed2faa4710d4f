"""Control characters in untrusted text, made harmless for a terminal or a log line.

Pages, models and the extension can put escape sequences in what we print (an OSC 52 write
to the clipboard, an OSC 8 link hidden behind innocent text, a cursor move that rewrites the
screen) and CR/LF in what we log (a forged log line). A terminal gets the text without them;
a log gets them escaped, so one record stays one line and nothing is lost.
"""

from __future__ import annotations

import re

# Complete sequences first, so their payload (an OSC 8 link's URL) goes with them. String
# commands end at BEL or ST, or, when unterminated, at the end of the line.
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: cursor moves, colors, ...
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS
    r"|\x1b[ -/]*[0-~]?"  # any other escape
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 but \t and \n, DEL, C1
_LOG_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")  # and \n, line separators
_NAMED = {"\n": "\\n", "\r": "\\r"}


def strip_controls(text: str) -> str:
    """`text` for a terminal: escape sequences and control characters removed, except newline
    and tab."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


def escape_controls(text: str) -> str:
    """`text` for one log line: CR, LF and every other control character written as an
    escape (`\\n`, `\\x1b`), so nothing can start a forged line or reach a terminal."""
    return _LOG_UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
