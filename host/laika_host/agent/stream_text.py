"""The readable part of a model's reply while it streams.

A reply in JSON mode streams as LLMCP JSON (`{"assistant": {"markdown": "..."},
"citations": [...]}`): shown raw, a reader sees syntax and escapes, then the answer again
once it is parsed. This decodes the first `markdown` string as its characters arrive, so a
terminal can show the answer's prose once, as it is written. A reply that does not open with
`{` (Markdown mode, a model ignoring the format) is passed through as it is.

One pass over each character, with a bounded look-back for the key across chunk ends.
"""

from __future__ import annotations

import re

_KEY = re.compile(r'"(?:answer_)?markdown"[ \t\r\n]{0,16}:[ \t\r\n]{0,16}"')
_LOOK_BACK = 64  # longer than any match of _KEY, so a key split across chunks is found
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_OPENINGS = ("{", "`")  # a JSON object, or one fenced as ```json


class AnswerText:
    """Feed it the streamed text; each call returns what is new for the reader."""

    def __init__(self) -> None:
        self._mode = "start"  # start -> seek -> string -> done, or start -> text
        self._seen = ""  # seek: the last characters looked at (bounded)
        self._escape = ""  # string: an escape sequence not yet complete
        self._high = ""  # string: a high surrogate waiting for its low half

    def feed(self, chunk: str) -> str:
        if self._mode == "start":
            chunk = self._seen + chunk
            opening = chunk.lstrip()
            if not opening:
                self._seen = chunk[-_LOOK_BACK:]  # leading whitespace says nothing yet
                return ""
            self._seen = ""
            self._mode = "seek" if opening.startswith(_OPENINGS) else "text"
        if self._mode == "text":
            return chunk
        if self._mode == "seek":
            return self._seek(chunk)
        if self._mode == "string":
            return self._decode(chunk)
        return ""

    def _seek(self, chunk: str) -> str:
        window = self._seen + chunk
        found = _KEY.search(window)
        if found is None:
            self._seen = window[-_LOOK_BACK:]
            return ""
        self._mode, self._seen = "string", ""
        return self._decode(window[found.end() :])

    def _decode(self, chunk: str) -> str:
        out: list[str] = []
        for char in chunk:
            if self._escape:
                self._escape += char
                self._take_escape(out)
            elif char == "\\":
                self._escape = char
            elif char == '"':
                self._mode = "done"
                break
            else:
                out.append(self._flush_high() + char)
        return "".join(out)

    def _take_escape(self, out: list[str]) -> None:
        sequence = self._escape
        if sequence[1] != "u":
            self._escape = ""
            out.append(self._flush_high() + _ESCAPES.get(sequence[1], sequence[1]))
            return
        if len(sequence) < 6:
            return  # \uXXXX not complete yet
        self._escape = ""
        try:
            code = int(sequence[2:], 16)
        except ValueError:
            out.append(self._flush_high() + "\ufffd")
            return
        if 0xD800 <= code <= 0xDBFF:
            out.append(self._flush_high())
            self._high = chr(code)
        elif 0xDC00 <= code <= 0xDFFF and self._high:
            pair = (self._high + chr(code)).encode("utf-16", "surrogatepass")
            self._high = ""
            out.append(pair.decode("utf-16"))
        else:
            out.append(self._flush_high() + ("\ufffd" if 0xDC00 <= code <= 0xDFFF else chr(code)))

    def _flush_high(self) -> str:
        """A high surrogate not followed by its low half cannot be shown: U+FFFD."""
        if not self._high:
            return ""
        self._high = ""
        return "\ufffd"
