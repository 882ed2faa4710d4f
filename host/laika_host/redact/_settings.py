"""Values of secret-named settings, in the syntaxes pages, configs and logs write them.

`name=value`, `name: value`, `"name": "value"`, `'name' => 'value'`, `name := "value"`,
YAML (also a value on the next, indented line), TOML, INI, env files (`DB_PASS=x`), CLI flags
(`--password x`, `--password=x`), XML elements (`<password>x</password>`), with any spacing
(aligned columns, tabs, no-break and other Unicode spaces, fullwidth colon and equals sign) and with
Markdown emphasis or escapes around the name. A name may be several prose words (`Your API
key: x`); `_names` says whether it is secret and how surely, `_values` whether a value after
a colon is one.

Linear time: operators are found left to right and each name is read back a bounded
distance; a value's end is found once per run of characters (`_Scanner` remembers it), a
quoted value ends at the first quote no backslash escapes, and a value is judged by a
bounded prefix. A value is replaced whole, however long.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ._names import MAX_NAME, QUALIFIED_NOUNS, Strength, name_words, strength_of
from ._spans import REDACTED, Span, replace_spans
from ._values import WINDOW, generated, ordinary, two_classes

_OPERATOR = re.compile(r"[:=\uff1a\uff1d]")
_ASCII_OPERATOR = {"\uff1a": ":", "\uff1d": "="}
# Spaces a page puts between a name, its operator and its value (`&nbsp;`, `&ensp;`, ...).
PADS = frozenset(" \t\u00a0\u1680\u180e\u202f\u205f\u3000\u200b\u200c\u200d\u2060\ufeff") | {
    chr(code) for code in range(0x2000, 0x200B)
}
_AROUND_NAME = "\"'*_`\\"
_AFTER_OPERATOR = "*_`"
_NAME_CHARS = "_\\.-"
# Heads that prose words before them can make secret or strong (`API key`, `Session ID`).
_QUALIFIABLE = QUALIFIED_NOUNS | {"id"}
_VALUE_RUN = re.compile(r"[^\s\"'<>&;,)\]}]+")
_TRAILING = ".:*`"
MAX_AROUND = 6
MAX_TRAILING = 8
MAX_BACKSLASHES = 64
MAX_INDENT = 32
_FLAG = re.compile(r"(?<![\w-])--(?P<name>[A-Za-z][\w.-]{0,63})[ \t]+")
# `<add key="DbPassword" value="x"/>`, `<property name="password" value="x"/>`: the name is
# an attribute's value, the secret the next attribute's.
_NAMED_VALUE = re.compile(
    r"\b(?:key|name)[ \t]*=[ \t]*(?P<quote>[\"'])(?P<name>[A-Za-z_][\w.:-]{0,63})(?P=quote)"
    r"[ \t]+value[ \t]*=[ \t]*(?=[\"'])"
)
_ELEMENT = re.compile(
    r"\\?<(?P<name>[A-Za-z_][\w.:-]{0,63})(?:[ \t][^<>\n]{0,200})?\\?>"
    r"(?P<value>[^<]*?)\\?</(?P=name)[ \t]*\\?>"
)


@dataclass(frozen=True)
class _Head:
    """What precedes a value: how secret its name is and how it was written."""

    strength: Strength
    strict: bool  # an assignment (`=`, `:=`, `=>`, a quoted or structured value): any value
    value_at: int
    colon: bool = False


def redact_settings(text: str) -> str:
    """`text` with the value of every secret-named setting replaced by `[redacted]`."""
    spans = _assignments(text)
    if "--" in text:
        spans += _flags(text)
    if "</" in text:
        spans += _elements(text)
    if "value" in text:
        spans += _named_values(text)
    return replace_spans(text, spans) if spans else text


class _Scanner:
    """Reads values, remembering the end of the last line and run it found: every operator
    inside one long run or line then costs a lookup, not another scan."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._line = (0, -1)
        self._run = (0, 0)

    def line_end(self, at: int) -> int:
        start, end = self._line
        if start <= at <= end:
            return end
        end = self.text.find("\n", at)
        self._line = (at, len(self.text) if end < 0 else end)
        return self._line[1]

    def run_end(self, at: int) -> int:
        start, end = self._run
        if not start <= at < end:
            run = _VALUE_RUN.match(self.text, at)
            self._run = start, end = (at, run.end() if run else at)
        return end

    def value(self, head: _Head) -> Span | None:
        """The span to redact after `head`, or None when the value is no secret."""
        text, at = self.text, head.value_at
        if at >= len(text) or text.startswith(REDACTED, at):
            return None
        if text[at] in "\"'":
            return self._quoted(head, at)
        if text[at] == "(":
            return None  # "Password: (optional)": a remark, not a value
        end = _trimmed(text, at, self.run_end(at))
        if end <= at:
            return None
        return (at, end) if _bare_is_secret(head, text, at, end) else None

    def _quoted(self, head: _Head, at: int) -> Span | None:
        """Inside the quotes; an unterminated value runs to the end of its line."""
        close = self._closing(at)
        start, end = at + 1, self.line_end(at) if close is None else close
        if end <= start or self.text[start:end] == REDACTED:
            return None
        if ordinary(self.text[start : min(end, start + 10)], weak=head.strength is Strength.WEAK):
            return None  # `"session": "3"`; short, so ending here scanned little
        return (start, end)

    def _closing(self, at: int) -> int | None:
        """The quote that closes the one at `at`: not escaped by a backslash, and not
        followed by a letter or digit (Markdown writes `\\"` as `\\\\"`: the string goes on)."""
        text, quote, line_end = self.text, self.text[at], self.line_end(at)
        search = at + 1
        while (close := text.find(quote, search, line_end)) >= 0:
            if not _escaped(text, close) and not text[close + 1 : close + 2].isalnum():
                return close
            search = close + 1
        return None


def _escaped(text: str, at: int) -> bool:
    count = 0
    while count < MAX_BACKSLASHES and at - count > 0 and text[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _trimmed(text: str, start: int, end: int) -> int:
    """`end` moved back over closing punctuation (`hunter2.`, `**x**`)."""
    stop = max(start, end - MAX_TRAILING)
    while end > stop and text[end - 1] in _TRAILING:
        end -= 1
    return end


def _bare_is_secret(head: _Head, text: str, start: int, end: int) -> bool:
    """After `=` any value is a secret; after a colon (prose) a strong name's value is one
    unless plain words follow it, and a weak name's only when it looks generated and ends
    its phrase. Literals never are, nor small numbers under a weak name."""
    value = text[start : min(end, start + WINDOW)]
    if end - start <= WINDOW and ordinary(value, weak=head.strength is Strength.WEAK):
        return False
    if head.strict:
        return True
    more_words = _more_words(text, end)
    if head.strength is Strength.STRONG:
        return two_classes(value) or not more_words
    return generated(value) and not more_words


def _more_words(text: str, at: int) -> bool:
    """Whether a word follows `at` on its line: the value was part of a sentence."""
    at = _skip(text, at, PADS, 8)
    return at < len(text) and text[at].isalnum()


# --- name operator value ---------------------------------------------------------------


def _assignments(text: str) -> list[Span]:
    scanner = _Scanner(text)
    spans: list[Span] = []
    search_at = 0
    while (operator := _OPERATOR.search(text, search_at)) is not None:
        search_at = _operator_end(text, operator.start())
        if text.startswith("//", search_at):
            continue  # a URL's scheme
        head = _head(text, operator.start(), search_at)
        if head is None:
            continue
        span = scanner.value(head)
        if span is None and head.colon and _at_line_end(text, head.value_at):
            span = _next_line_value(scanner, head)
        if span is not None:
            spans.append(span)
            search_at = max(search_at, span[1])
        elif text.startswith(REDACTED, head.value_at):
            search_at = head.value_at + len(REDACTED)
    return spans


def _operator_end(text: str, at: int) -> int:
    """`:=` and `=>` are one operator."""
    following = text[at + 1 : at + 2]
    if (text[at] in ":\uff1a" and following == "=") or (text[at] in "=\uff1d" and following == ">"):
        return at + 2
    return at + 1


def _head(text: str, op_at: int, op_end: int) -> _Head | None:
    """The secret name written before the operator at `op_at` (None when there is none)."""
    end = _skip_back(text, op_at, PADS, len(text))
    spaced_before = end < op_at
    end = _skip_back(text, end, _AROUND_NAME, MAX_AROUND)
    start = end
    while start > end - MAX_NAME - 1 and start > 0 and _is_name_char(text[start - 1]):
        start -= 1
    name = text[start:end].lstrip("-.\\")  # `--password=` names `password`
    if end - start > MAX_NAME or not name or not (name[0].isalpha() or name[0] == "_"):
        return None
    words = name_words(name)
    if words in (["is"], ["was"]):  # `Your API key is: x`: the name is before the verb
        words = _prose_before(text, start)
        before, words = words[:-1], words[-1:]
    else:
        before = _prose_before(text, start) if words[-1:] and words[-1] in _QUALIFIABLE else []
    strength = strength_of([*before, *words], spaced=len(before))
    if strength is None:
        return None
    value_at = _skip(text, op_end, PADS, len(text))
    op = "=" if op_end - op_at == 2 else _ASCII_OPERATOR.get(text[op_at], text[op_at])
    dangling = op == "=" and value_at > op_end and not spaced_before  # `the token= field`
    value_at = _skip(text, value_at, _AFTER_OPERATOR, 4)
    return _Head(strength, strict=op == "=" and not dangling, value_at=value_at, colon=op == ":")


def _prose_before(text: str, at: int) -> list[str]:
    """Up to two words written before the name, one space apart (`Your API` of `Your API
    key`): they can qualify it."""
    words: list[str] = []
    for _ in range(2):
        end = _skip_back(text, at, PADS, 2)
        start = end
        while start > end - MAX_NAME and start > 0 and text[start - 1].isalpha():
            start -= 1
        if end in (at, start) or (start > 0 and _is_name_char(text[start - 1])):
            break
        words[:0] = name_words(text[start:end])
        at = start
    return words


def _at_line_end(text: str, at: int) -> bool:
    return at >= len(text) or text[at] in "\r\n"


def _next_line_value(scanner: _Scanner, head: _Head) -> Span | None:
    """A YAML value on the next, indented line (`password:\\n  x`); strong names only."""
    text, at = scanner.text, head.value_at
    if head.strength is not Strength.STRONG:
        return None
    at += text.startswith("\r\n", at)
    if not text.startswith("\n", at):
        return None
    indented = _skip(text, at + 1, " \t", MAX_INDENT)
    if indented == at + 1:
        return None
    return scanner.value(replace(head, value_at=indented, colon=False))


def _is_name_char(char: str) -> bool:
    return char.isalnum() or char in _NAME_CHARS


def _skip_back(text: str, at: int, chars: str | frozenset[str], limit: int) -> int:
    stop = max(0, at - limit)
    while at > stop and text[at - 1] in chars:
        at -= 1
    return at


def _skip(text: str, at: int, chars: str | frozenset[str], limit: int) -> int:
    stop = min(len(text), at + limit)
    while at < stop and text[at] in chars:
        at += 1
    return at


# --- flags and elements ----------------------------------------------------------------


def _flags(text: str) -> list[Span]:
    """`--password x`: judged like a colon (`use the --password flag to` is prose)."""
    scanner = _Scanner(text)
    spans = []
    for flag in _FLAG.finditer(text):
        strength = strength_of(name_words(flag.group("name")))
        if strength is None or text.startswith("-", flag.end()):
            continue
        span = scanner.value(_Head(strength, strict=False, value_at=flag.end()))
        if span is not None:
            spans.append(span)
    return spans


def _named_values(text: str) -> list[Span]:
    scanner = _Scanner(text)
    spans = []
    for pair in _NAMED_VALUE.finditer(text):
        strength = strength_of(name_words(pair.group("name")))
        if strength is not None:
            span = scanner.value(_Head(strength, strict=True, value_at=pair.end()))
            spans += [span] if span is not None else []
    return spans


def _elements(text: str) -> list[Span]:
    """`<password>x</password>`, also as Markdown escapes it (`\\<password>x\\</password>`)."""
    spans = []
    for element in _ELEMENT.finditer(text):
        strength = strength_of(name_words(element.group("name")))
        value = element.group("value")
        core = value.strip()
        if strength is None or not core or core == REDACTED:
            continue
        if len(core) <= 10 and ordinary(core, weak=strength is Strength.WEAK):
            continue
        start = element.start("value") + len(value) - len(value.lstrip())
        spans.append((start, start + len(core)))
    return spans
