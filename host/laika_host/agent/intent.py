"""The offline runtime's reading of a request for an action (spec 004: the tools are an
exhaustive whitelist).

A model is told to decline what no tool can do; the offline runtime has no model, so this
small, deterministic matcher does the same from the user's words alone: a request that a
tool covers ("calculate 2+2", "create a collection named Tides") becomes that tool's
proposal, which goes through the Policy Gate like any other; an imperative action that no
tool covers ("delete my browser history", "send an email to ...", "buy ...") is declined
with the list of what can be done; anything else (questions about the sources) is left to
the grounded answer. Conservative by design: only a request that *starts* with an action
verb (after a few polite openings) is read as one, so a question that mentions deleting
or buying is still answered from the sources.

Linear time: the question is cut to `MAX_CHARS`, then each pattern is anchored and has no
nested repetition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..tools.registry import entry

MAX_CHARS = 500
"""Only the start of a question is read: a request for an action is short."""

_POLITE = re.compile(
    r"(?:(?:please|laika|hey|ok|okay|now|then|and)[\s,:!]+"
    r"|(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"|i\s+(?:want|need|would\s+like)\s+(?:you\s+)?to\s+"
    r"|(?:go\s+ahead\s+and|help\s+me)\s+)",
    re.I,
)
_CALCULATE = re.compile(
    r"(?:calculate|compute|evaluate|work\s+out|what\s+is|what's|how\s+much\s+is)\s+"
    r"(?P<expression>[0-9.,+\-*/^%()\s\u00d7\u00f7\u2212\u03c0]{1,400})=?\Z",
    re.I,
)
_QUOTES = "\"'\u201c\u201d\u2018\u2019"
_QUOTES_OPEN = "[\"'\u201c\u2018]"
_QUOTES_CLOSE = "[\"'\u201d\u2019]"
_CREATE_COLLECTION = re.compile(
    r"(?:create|make|start|add)\s+(?:a\s+|an\s+|the\s+)?(?:new\s+)?collection\s+"
    r"(?:(?:named|called|titled)\s+)?"
    + _QUOTES_OPEN
    + r"?(?P<title>[^\n"
    + _QUOTES
    + r"]{1,200})"
    + _QUOTES_CLOSE
    + r"?\Z",
    re.I,
)
_LIST_TRANSFORMS = re.compile(
    r"(?:list|show)\s+(?:me\s+)?(?:the\s+|all\s+)?(?:transform|transformation)s?"
    r"(?:\s+types?)?\Z",
    re.I,
)
_ACTION = re.compile(r"(?P<verb>[a-z]+(?:\s+(?:in|up|out|off|down))?)\b", re.I)

_DECLINED = """delete remove erase clear wipe empty purge uninstall install send email mail
    message dm call phone buy purchase order pay checkout transfer wire donate book reserve
    subscribe unsubscribe post tweet publish reply comment follow unfollow upload download
    print schedule cancel log sign register login logout rename move reboot restart shutdown"""
DECLINED_VERBS = frozenset(_DECLINED.split())
"""Actions no tool can do, as the first word of a request (`log in`, `sign up` too). Verbs a
tool covers (open, click, type, save, share, capture, run, search) are not here."""
_PHRASAL = ("in", "up", "out", "off", "down")


@dataclass(frozen=True)
class Propose:
    """The request is a tool's: propose this call."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Decline:
    """An action no tool can do; `action` is the request's verb as written."""

    action: str


Intent = Propose | Decline


def read_intent(question: str, offered: list[str]) -> Intent | None:
    """What the offline runtime does with `question` when `offered` tools are available:
    propose a call, decline, or (None) answer it from the sources."""
    request = _request(question)
    for name, pattern, arguments in _TOOL_PATTERNS:
        found = pattern.match(request)
        called = arguments(found) if found and name in offered else None
        if called is not None:
            return Propose(name, called)
    action = _ACTION.match(request)
    if action is None:
        return None
    verb = action.group("verb").lower()
    first = verb.split()[0]
    if first not in DECLINED_VERBS:
        return None
    return Decline(verb if verb.split()[-1] in _PHRASAL else first)


def _request(question: str) -> str:
    """The question without its polite opening (each opening once, in any order)."""
    text = question[:MAX_CHARS].strip()
    for _ in range(4):
        opening = _POLITE.match(text)
        if opening is None:
            break
        text = text[opening.end() :]
    return text.rstrip(_TRAILING)


_TRAILING = " \t\r\n?.!"


def _calculate(found: re.Match[str]) -> dict[str, Any] | None:
    """An expression with a number and an operator ("what is 2024" is not a calculation)."""
    expression = " ".join(found.group("expression").split())
    if not (_DIGIT.search(expression) and _OPERATOR.search(expression)):
        return None
    return {"expression": expression}


_DIGIT = re.compile(r"[0-9\u03c0]")
_OPERATOR = re.compile(r"[+\-*/^%\u00d7\u00f7\u2212]")


def _collection(found: re.Match[str]) -> dict[str, Any] | None:
    title = found.group("title").strip()
    return {"title": title} if title else None


def _no_arguments(_found: re.Match[str]) -> dict[str, Any] | None:
    return {}


_TOOL_PATTERNS = (
    ("app.calculate", _CALCULATE, _calculate),
    ("collection.create", _CREATE_COLLECTION, _collection),
    ("transform.list_types", _LIST_TRANSFORMS, _no_arguments),
)


def decline_answer(intent: Decline, offered: list[str]) -> str:
    """The answer to an action no tool can do: it cannot, nothing ran, and what it can do."""
    lines = [
        f"I can't do that: no tool of mine can {intent.action} things for you, so nothing "
        "was run. Here is what I can do:",
        "",
        "- answer questions from the sources you saved, with checked quotes",
    ]
    lines += [f"- {entry(name).description} (`{name}`)" for name in offered]
    return "\n".join(lines)
