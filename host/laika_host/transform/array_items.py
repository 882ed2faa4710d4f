"""The elements of `{"items": [ {...}, {...}, ...` as they complete, even if the reply is cut.

A schema-constrained reply (one JSON object holding an array of items) is only valid JSON
once it is whole, and a small model often runs into max_tokens first. This scanner reads the
text once, character by character (strings and escapes tracked, so braces inside strings do
not count), and hands out the text of each object element of the array at nesting depth 2 as
soon as its closing brace arrives; what was cut mid-element is simply never handed out.
An element longer than `max_element` characters is dropped as it streams (counted in
`dropped`), so time and memory stay linear whatever the reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_ELEMENT = 32_000
_OPEN, _CLOSE = "{[", "}]"


@dataclass
class ArrayItems:
    max_element: int = MAX_ELEMENT
    dropped: int = 0
    _depth: int = 0
    _in_string: bool = False
    _escaped: bool = False
    _parts: list[str] = field(default_factory=list)
    _length: int = 0
    _collecting: bool = False
    _overflow: bool = False

    def feed(self, text: str) -> list[str]:
        done: list[str] = []
        start = 0 if self._collecting else None
        for index, char in enumerate(text):
            began = self._step(char)
            if began:
                start = index
            elif self._collecting and self._depth == 2 and char == "}" and not self._in_string:
                assert start is not None
                finished = self._take(text[start : index + 1])
                if finished is not None:
                    done.append(finished)
                start = None
        if self._collecting and start is not None:
            self._keep(text[start:])
        return done

    def _step(self, char: str) -> bool:
        """Advance the state by one character; True when an element starts here."""
        if self._in_string:
            if self._escaped:
                self._escaped = False
            elif char == "\\":
                self._escaped = True
            elif char == '"':
                self._in_string = False
            return False
        if char == '"':
            self._in_string = True
        elif char in _OPEN:
            self._depth += 1
            if self._depth == 3 and char == "{":
                self._collecting, self._parts, self._length, self._overflow = True, [], 0, False
                return True
        elif char in _CLOSE:
            self._depth = max(0, self._depth - 1)
        return False

    def _keep(self, piece: str) -> None:
        if self._overflow:
            return
        self._length += len(piece)
        if self._length > self.max_element:
            self._overflow, self._parts = True, []
        else:
            self._parts.append(piece)

    def _take(self, last: str) -> str | None:
        self._keep(last)
        self._collecting = False
        if self._overflow:
            self.dropped += 1
            return None
        return "".join(self._parts)
