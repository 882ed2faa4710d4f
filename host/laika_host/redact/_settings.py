"""Values of secret-named settings, in the syntaxes pages, configs and logs write them.

`name=value`, `name: value`, `"name": "value"`, `'name' => 'value'`, `name := "value"`,
YAML (also a value on the next, indented line), TOML, INI, env files (`DB_PASS=x`), CLI flags
(`--password x`, `--password=x`), XML elements (`<password>x</password>`), with any spacing
(aligned columns, tabs, no-break and other Unicode spaces, fullwidth colon and equals sign) and with
Markdown emphasis or escapes around the name. A name may be several prose words (`Your API
key: x`); `_names` says whether it is secret and how surely, `_reader` where its value ends
and whether that value is one.

Linear time: operators are found left to right, each name is read back a bounded distance,
and `_reader` finds a value's end once however many operators sit inside it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ._extra import extra_names
from ._names import (
    MAX_NAME,
    QUALIFIED_NOUNS,
    Strength,
    could_name_a_secret,
    name_words,
    strength_of,
)
from ._reader import PADS, Head, Reader, skip, skip_back
from ._spans import REDACTED, Span, replace_spans
from ._values import ordinary

_OPERATOR = re.compile(r"[:=\uff1a\uff1d]")
_ASCII_OPERATOR = {"\uff1a": ":", "\uff1d": "="}
_AROUND_NAME = "\"'*_`\\"
_AFTER_OPERATOR = "*_`"
_NAME_CHARS = "_\\.-"
# Heads that prose words before them can make secret or strong (`API key`, `Session ID`).
_QUALIFIABLE = QUALIFIED_NOUNS | {"id"}
MAX_AROUND = 6
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


def redact_settings(text: str) -> str:
    """`text` with the value of every secret-named setting replaced by `[redacted]`."""
    extra = extra_names()
    if not could_name_a_secret(text.lower(), extra):
        return text
    return read_settings(text, extra.joined)


def read_settings(text: str, extra: frozenset[str] | None = None) -> str:
    """`redact_settings` without its cheap first look (tests check that look skips nothing);
    `extra`: the user's own secret names (None: read them now)."""
    if extra is None:
        extra = extra_names().joined
    spans = _assignments(text, extra)
    if "--" in text:
        spans += _flags(text, extra)
    if "</" in text:
        spans += _elements(text, extra)
    if "value" in text:
        spans += _named_values(text, extra)
    return replace_spans(text, spans) if spans else text


# --- name operator value ---------------------------------------------------------------


def _assignments(text: str, extra: frozenset[str]) -> list[Span]:
    reader = Reader(text)
    spans: list[Span] = []
    search_at = 0
    while (operator := _OPERATOR.search(text, search_at)) is not None:
        search_at = _operator_end(text, operator.start())
        if text.startswith("//", search_at):
            continue  # a URL's scheme
        head = _head(text, operator.start(), search_at, extra)
        if head is None:
            continue
        span = reader.value(head)
        if span is None and head.colon and _at_line_end(text, head.value_at):
            span = _next_line_value(reader, head)
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


def _head(text: str, op_at: int, op_end: int, extra: frozenset[str]) -> Head | None:
    """The secret name written before the operator at `op_at` (None when there is none)."""
    end = skip_back(text, op_at, PADS, len(text))
    spaced_before = end < op_at
    end = skip_back(text, end, _AROUND_NAME, MAX_AROUND)
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
    strength = strength_of([*before, *words], spaced=len(before), extra=extra)
    if strength is None:
        return None
    value_at = skip(text, op_end, PADS, len(text))
    op = "=" if op_end - op_at == 2 else _ASCII_OPERATOR.get(text[op_at], text[op_at])
    dangling = op == "=" and value_at > op_end and not spaced_before  # `the token= field`
    value_at = skip(text, value_at, _AFTER_OPERATOR, 4)
    return Head(strength, strict=op == "=" and not dangling, value_at=value_at, colon=op == ":")


def _prose_before(text: str, at: int) -> list[str]:
    """Up to two words written before the name, one space apart (`Your API` of `Your API
    key`): they can qualify it."""
    words: list[str] = []
    for _ in range(2):
        end = skip_back(text, at, PADS, 2)
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


def _next_line_value(reader: Reader, head: Head) -> Span | None:
    """A YAML value on the next, indented line (`password:\\n  x`); strong names only."""
    text, at = reader.text, head.value_at
    if head.strength is not Strength.STRONG:
        return None
    at += text.startswith("\r\n", at)
    if not text.startswith("\n", at):
        return None
    indented = skip(text, at + 1, " \t", MAX_INDENT)
    if indented == at + 1:
        return None
    return reader.value(replace(head, value_at=indented, colon=False))


def _is_name_char(char: str) -> bool:
    return char.isalnum() or char in _NAME_CHARS


# --- flags and elements ----------------------------------------------------------------


def _flags(text: str, extra: frozenset[str]) -> list[Span]:
    """`--password x`: judged like a colon (`use the --password flag to` is prose)."""
    reader = Reader(text)
    spans = []
    for flag in _FLAG.finditer(text):
        strength = strength_of(name_words(flag.group("name")), extra=extra)
        if strength is None or text.startswith("-", flag.end()):
            continue
        span = reader.value(Head(strength, strict=False, value_at=flag.end()))
        if span is not None:
            spans.append(span)
    return spans


def _named_values(text: str, extra: frozenset[str]) -> list[Span]:
    reader = Reader(text)
    spans = []
    for pair in _NAMED_VALUE.finditer(text):
        strength = strength_of(name_words(pair.group("name")), extra=extra)
        if strength is not None:
            span = reader.value(Head(strength, strict=True, value_at=pair.end()))
            spans += [span] if span is not None else []
    return spans


def _elements(text: str, extra: frozenset[str]) -> list[Span]:
    """`<password>x</password>`, also as Markdown escapes it (`\\<password>x\\</password>`)."""
    spans = []
    for element in _ELEMENT.finditer(text):
        strength = strength_of(name_words(element.group("name")), extra=extra)
        value = element.group("value")
        core = value.strip()
        if strength is None or not core or core == REDACTED:
            continue
        if len(core) <= 10 and ordinary(core, weak=strength is Strength.WEAK):
            continue
        start = element.start("value") + len(value) - len(value.lstrip())
        spans.append((start, start + len(core)))
    return spans
