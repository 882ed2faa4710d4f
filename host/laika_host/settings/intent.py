"""The offline intent matcher: a user's sentence -> one settings tool with its arguments, or
a decline. Deterministic and small on purpose (no model), so the built-in runtime can change
settings too and nothing free-form ever is.

How it reads: the request is split into words (`words`: typos of known words corrected),
numbers are read however they are written (`numbers`: `50,000`, `50k`, `fifty thousand`),
and each rule looks for its setting's words (`vocabulary`: synonyms per setting) and the
value. A rule that finds its setting but no value, or two readings, asks back (a decline
whose reason is a question) instead of guessing; what no rule reads is declined with the
closest things that can be changed (`Decline.suggestions`). A change is only ever proposed
with arguments its tool accepts, else declined saying why.

Bounded, linear time over any text: the text is cut at MAX_TEXT characters (longer is
declined), split into words once by one regular expression with no nested repetition, and
each rule reads the word list a fixed number of times with set lookups and `str.find`.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import intent_rules, numbers
from . import vocabulary as v
from .words import Words, split

MAX_TEXT = 2_000
"""Characters of a request the matcher reads; a longer one is declined."""
_NUMBER = re.compile(r"\d{1,9}(?:\.\d{1,3})?")
_DOMAIN = re.compile(r"[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+")
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TRIM = ".,;:!?)('\"`\u201c\u201d\u2018\u2019"
_PATH_PARTS = re.compile(r"[._]")
_ASSIGN = re.compile(r"[:=]")
_QUOTED = re.compile(r"[\"\u201c\u201d']([^\"\u201c\u201d'\n]{1,200})[\"\u201c\u201d']")

DECLINE_WORDS = frozenset(
    {"gate", "key", "keys", "apikey", "password", "passwords", "credential", "credentials"}
    | {"upload", "email", "erase", "wipe", "bypass", "jailbreak", "export", "delete-all"}
)
"""Words of requests no settings tool serves (the gate, keys, sending data away): declined
before any rule reads them, so a domain or a name in them is never acted on. "send" is one
too, unless it routes new captures to a collection ("send new captures to Later")."""
NO_TOOL = "Laika's settings can't do that"


@dataclass(frozen=True)
class ProviderFacts:
    """What the matcher knows of a configured provider: its id, kind, and whether it runs
    on this machine (a loopback address, or Ollama's kind)."""

    id: str
    kind: str
    local: bool


@dataclass(frozen=True)
class Intent:
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Decline:
    """No change. `reason` ends with "?" when the matcher asks back (it read a setting but
    not what to set it to, or two readings); `suggestions`: the settings tools closest to
    the request, best first (what the decline offers instead, in words)."""

    reason: str
    suggestions: tuple[str, ...] = ()

    @property
    def asks(self) -> bool:
        return self.reason.rstrip().endswith("?")


@dataclass(frozen=True)
class _Text:
    """The request as words, numbers, and what the matcher knows around it."""

    original: str
    lower: str
    split: Words
    vocabulary: frozenset[str]
    numbers: list[numbers.Number]
    providers: Sequence[ProviderFacts] = field(default_factory=tuple)
    rule_ids: Sequence[str] = field(default_factory=tuple)
    transform_types: Sequence[str] = field(default_factory=tuple)

    @property
    def words(self) -> list[str]:
        return self.split.words

    @property
    def raw(self) -> list[str]:
        return self.split.raw

    def has(self, *words: str) -> bool:
        return any(word in self.vocabulary for word in words)

    def hits(self, group: frozenset[str]) -> bool:
        return not self.vocabulary.isdisjoint(group)

    def after(self, *markers: str) -> str:
        """The original text after the last of `markers` found (lowercase match), trimmed."""
        best = -1
        for marker in markers:
            found = self.lower.rfind(marker)
            if found >= 0:
                best = max(best, found + len(marker))
        return "" if best < 0 else self.original[best:].strip().strip(_TRIM).strip()

    def near_before(self, index: int, group: frozenset[str], reach: int = 3) -> bool:
        return any(word in group for word in self.words[max(0, index - reach) : index])


Rule = Callable[[_Text], "Intent | Decline | None"]


def match(
    text: str,
    providers: Sequence[ProviderFacts] = (),
    *,
    rule_ids: Sequence[str] = (),
    transform_types: Sequence[str] = (),
) -> Intent | Decline:
    """The one tool `text` asks for, or why none does (a question when it could not tell).
    `rule_ids` (the event rules there are) and `transform_types` let it read a rule's
    deletion or creation."""
    if len(text) > MAX_TEXT:
        return Decline(f"the request is longer than {MAX_TEXT:,} characters: say it briefly")
    parsed = _parse(text, providers, rule_ids, transform_types)
    if _declined(parsed):
        return Decline(
            "Laika's settings can't do that: they never send data anywhere, touch keys or "
            "turn off the Policy Gate",
            _suggestions(parsed),
        )
    question: Decline | None = None
    for rule in RULES:
        found = rule(parsed)
        if isinstance(found, Decline) and found.asks:
            question = question or found  # a later rule may read the whole request
            continue
        if found is not None:
            return _suggesting(parsed, _checked(_one_change(parsed, rule, found)))
    return _suggesting(parsed, question or _unmatched(parsed))


def _suggesting(text: _Text, found: Intent | Decline) -> Intent | Decline:
    """A decline names three tools: its own first, then the closest to the words."""
    if isinstance(found, Intent) or len(found.suggestions) >= 3:
        return found
    more = [name for name in _suggestions(text) if name not in found.suggestions]
    return Decline(found.reason, (*found.suggestions, *more)[:3])


_JOINED = frozenset({"and", "also", "then", "plus"})


def _one_change(text: _Text, rule: Rule, found: Intent | Decline) -> Intent | Decline:
    """`found`, unless the request joins a second change ("dark mode and 50k characters"):
    then it asks which one, since a tool makes one change."""
    if not isinstance(found, Intent) or rule not in _VALUE_RULES:
        return found
    if not (text.hits(_JOINED) or "," in text.original):
        return found
    for other in _VALUE_RULES[_VALUE_RULES.index(rule) + 1 :]:
        second = other(text)
        if isinstance(second, Intent):
            tool = second.tool
        elif isinstance(second, Decline) and second.suggestions and not second.asks:
            tool = second.suggestions[0]  # its setting, with a value it cannot take
        else:
            continue
        if tool != found.tool:
            return Decline("one change at a time: which first?", (found.tool, tool))
    return found


def _parse(
    text: str,
    providers: Sequence[ProviderFacts],
    rule_ids: Sequence[str],
    transform_types: Sequence[str],
) -> _Text:
    cleaned = numbers.group_digits(text)
    words = split(cleaned, v.KNOWN)
    vocabulary = set(words.words)
    for word in words.words:  # `capture.max_chars`, `show_citations`: their parts too
        if "_" in word or "." in word:
            vocabulary.update(part for part in _PATH_PARTS.split(word) if part)
    return _Text(
        cleaned,
        cleaned.lower(),
        words,
        frozenset(vocabulary),
        numbers.read(words.words),
        providers,
        rule_ids,
        transform_types,
    )


def _declined(text: _Text) -> bool:
    if text.has(*DECLINE_WORDS) or _disables_the_policy(text):
        return True
    routes_captures = text.hits(v.CAPTURE) and (text.hits(v.GENERAL) or text.has("captures"))
    return text.has("send", "sending", "share", "post", "publish") and not routes_captures


def _disables_the_policy(text: _Text) -> bool:
    turning_off = text.has("disable", "off", "remove", "delete", "stop", "skip", "ignore")
    one_rule = text.has(*_DECISION_WORDS)  # "remove the policy rule allow-x": one rule
    if any(_domain(word) for word in text.words):
        return False  # about one domain: `policy.allow_domain` reads it
    guards = text.has("policy", "approvals", "safety", "guard", "approval", "confirmation")
    return turning_off and not one_rule and (guards or text.has("asking", "confirmations"))


def _checked(found: Intent | Decline) -> Intent | Decline:
    """`found`, when its tool accepts its arguments; else a decline saying why."""
    if isinstance(found, Decline):
        return found
    from pydantic import ValidationError

    from .catalog import SETTINGS_TOOLS

    try:
        SETTINGS_TOOLS[found.tool].arguments.model_validate(found.arguments)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        return Decline(f"{where}: {problem['msg']}", (found.tool,))
    return found


# --- the rules, in the order they are tried ---------------------------------------------


def _event_rules(text: _Text) -> Intent | None:
    """Event rules (`intent_rules`): a sentence making one, a deletion naming one, a list."""
    found = intent_rules.create(text.original, text.transform_types, _domain)
    found = found or intent_rules.list_or_delete(text.words, text.raw, text.rule_ids)
    return None if found is None else Intent(*found)


_POLITE = frozenset(
    {"please", "could", "can", "would", "will", "you", "laika", "hey", "ok", "okay", "so"}
    | {"now", "kindly", "quickly", "just", "and", "then", "hi", "hello", "me", "tell"}
)
_QUESTIONS = frozenset({"what", "which", "how", "are", "is", "do", "does", "whats", "where"})
_SHOW_VERBS = frozenset({"show", "display", "list", "view", "check", "give", "tell", "print"})


def _show(text: _Text) -> Intent | None:
    """A question about the settings, or "show my settings" (read-only)."""
    first = _first_word(text)
    asks = first in _QUESTIONS or (text.original.rstrip().endswith("?") and first != "set")
    shows = first in _SHOW_VERBS or text.words[:2] == ["tell", "me"]
    if not (asks or shows) or _changes(text):
        return None
    named = text.hits(v.SETTINGS)
    path = _shown_path(text.words)
    if path is None and not named:
        return None
    sets = path == "ui.show_citations" or text.has("dark", "light", "system")
    if shows and not asks and not named and not text.has("current", "my") and sets:
        return None  # "show citations" sets them
    return Intent("settings.show", {} if path is None else {"path": path})


def _first_word(text: _Text) -> str:
    """The first word after polite openings ("could you please", "hey Laika")."""
    for word in text.words:
        if word not in _POLITE or word == "tell":
            return word
    return ""


def _changes(text: _Text) -> bool:
    """Whether a question asks for a change: "can you set the theme to dark?", "can I get a
    light theme?", "how about 60000 characters?"."""
    first = _first_word(text)
    if first in v.CHANGE_VERBS or first in ("hide", "allow", "trust", "remember", "forget"):
        return True
    words = text.words
    suggests = any(words[i : i + 2] in (["how", "about"], ["what", "about"]) for i in range(2))
    modal = words[:1] in (["can"], ["could"], ["may"]) and words[1:2] in (["i"], ["we"])
    return suggests or modal


def _shown_path(words: list[str]) -> str | None:
    """The most specific section a question names (`limit` over `capture`)."""
    found = [path for path, group in v.SHOWN_PATHS.items() if not group.isdisjoint(words)]
    for word in words:  # `capture.max_chars`, `max_chars`
        found += [path for path in v.SHOWN_PATHS if word in (path, path.rsplit(".", 1)[-1])]
    return max(found, key=lambda path: path.count("."), default=None)


def _forget_decision(text: _Text) -> Intent | None:
    if not (text.has("forget", "revoke", "remove", "drop") and text.has(*_DECISION_WORDS)):
        return None
    names = [w for w, low in zip(text.raw, text.words, strict=True) if _is_rule_id(low)]
    return Intent("policy.forget_decision", {"rule_id": names[-1]}) if names else None


_DECISION_WORDS = ("decision", "decisions", "rule", "approval", "remembered")
_COMMON = frozenset(
    {"forget", "revoke", "remove", "drop", "the", "my", "a", "an", "rule", "decision"}
    | {"approval", "remembered", "please", "that", "this", "about", "for", "of", "to"}
)


def _is_rule_id(word: str) -> bool:
    return word not in _COMMON and any(c.isdigit() or c in "_.-" for c in word)


_FORGET_WORDS = ("forget", "remove", "delete", "clear", "drop", "unset")


def _forget_preference(text: _Text) -> Intent | None:
    if not (text.has(*_FORGET_WORDS) and text.hits(v.PREFERENCES)):
        return None
    key = _key_near(text)
    return Intent("settings.forget_preference", {"key": key}) if key else None


def _key_near(text: _Text) -> str | None:
    """The preference's name: after "preference", else before it ("my language
    preference")."""
    return _word_after(text, tuple(v.PREFERENCES)) or _word_before(text, tuple(v.PREFERENCES))


def _word_after(text: _Text, markers: tuple[str, ...]) -> str | None:
    for index, word in enumerate(text.words[:-1]):
        following = text.raw[index + 1]
        if word in markers and _KEY.fullmatch(following) and following.lower() not in _FILLER:
            return following
    return None


def _word_before(text: _Text, markers: tuple[str, ...]) -> str | None:
    for index, word in enumerate(text.words[1:], start=1):
        before = text.raw[index - 1]
        if word in markers and _KEY.fullmatch(before) and before.lower() not in _FILLER:
            return before
    return None


_FILLER = frozenset(
    {"my", "the", "a", "an", "to", "is", "that", "of", "for", "all", "your", "as", "are", "i"}
    | {"new", "this", "called", "named"}
)


def _set_preference(text: _Text) -> Intent | Decline | None:
    if text.hits(v.PREFERENCES) and text.has("set", "save", "store", "change", "make"):
        key = _key_near(text)
        value = text.after(" to ", " = ", " as ", " is ")
    elif _first_word(text) == "remember":
        key = _word_after(text, ("my",))
        value = text.after(" is ", " = ", " are ")
        if not key or not value:
            return Decline(
                "to remember a preference it needs a name and a value, e.g. `remember that "
                "my answer_length is short`: what should it be called?",
                ("settings.set_preference",),
            )
    else:
        return None
    if not key or not value:
        return None
    return Intent("settings.set_preference", {"key": key, "value": _typed(value)})


def _typed(value: str) -> str | int | float | bool:
    lowered = value.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if _NUMBER.fullmatch(value):
        return float(value) if "." in value else int(value)
    return value


_TOOL_WORDS = {
    "capture": ("source.capture", "source.refresh"),
    "captures": ("source.capture", "source.refresh"),
    "capturing": ("source.capture", "source.refresh"),
    "captured": ("source.capture", "source.refresh"),
    "open": ("browser.open_tab", "browser.navigate"),
    "opening": ("browser.open_tab", "browser.navigate"),
    "visit": ("browser.open_tab", "browser.navigate"),
    "navigate": ("browser.open_tab", "browser.navigate"),
}
_WITHOUT_ASKING = (
    *(" without asking", " without my approval", " without approval", "don't ask", "do not ask"),
    *("dont ask", "never ask", "no need to ask", "stop asking", "don\u2019t ask"),
)
_STOP_ALLOWING = frozenset({"stop", "don", "not", "never", "longer", "disallow", "untrust"})
_REMOVING = frozenset({"remove", "revoke", "delete", "forget", "drop", "disallow", "untrust"})


def _allow_domain(text: _Text) -> Intent | None:
    allows = text.hits(v.ALLOW) or any(marker in text.lower for marker in _WITHOUT_ASKING)
    if not allows or text.has("block", "deny", "forbid"):
        return None
    domains = [d for d in (_domain(word) for word in text.words) if d]
    if not domains:
        return None
    verb = next((i for i, word in enumerate(text.words) if word in v.ALLOW), None)
    if (verb is not None and text.near_before(verb, _STOP_ALLOWING)) or text.hits(_REMOVING):
        # "stop allowing example.org": forget the rule that allowed it
        return Intent("policy.forget_decision", {"rule_id": f"allow-{domains[0]}"})
    tools: list[str] = []
    for word in text.words:
        for name in _TOOL_WORDS.get(word, ()):
            if name not in tools:
                tools.append(name)
    arguments: dict[str, Any] = {"domain": domains[0]}
    if tools:
        arguments["tools"] = tools
    return Intent("policy.allow_domain", arguments)


def _domain(word: str) -> str | None:
    """A host name in `word`; not a settings path that looks like one (`policy.rules`)."""
    host = word.split("://", 1)[-1].split("/", 1)[0].rstrip(".")
    if not _DOMAIN.fullmatch(host) or host.replace(".", "").isdigit():
        return None
    if host in _setting_paths() or "_" in word:
        return None
    last = host.rsplit(".", 1)[-1]
    return host if last.isalpha() and len(host) <= 253 and len(last) >= 2 else None


@functools.cache
def _setting_paths() -> frozenset[str]:
    """Every dotted path of the registry's default document (`ui.theme`, `policy.rules`)."""
    from ..config.schema import Registry

    paths: set[str] = set()
    pending: list[tuple[str, Any]] = [("", Registry().model_dump(mode="json"))]
    while pending:
        prefix, value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                path = f"{prefix}.{key}" if prefix else str(key)
                paths.add(path.lower())
                pending.append((path, item))
    return frozenset(paths | {"llama.cpp"})


_UNDO_WORDS = frozenset(
    {"stop", "don", "not", "longer", "unredact", "remove", "no", "never", "dont", "unmask"}
)
_REDACTION_COMMON = (
    frozenset(
        {"treat", "treating", "as", "a", "an", "the", "please", "also", "too", "always", "and"}
        | {"or", "to", "my", "of", "from", "list", "add", "its", "their", "is", "are", "it"}
        | {"any", "more", "anymore", "t", "hidden", "hide", "keep", "consider", "mark", "named"}
        | {"called", "value", "values", "like", "with", "in", "on", "for", "that", "this"}
    )
    | v.SECRETS
    | v.SECRET_PLACES
    | v.HIDE
    | _UNDO_WORDS
)
_INTRODUCE = frozenset({"redact", "mask", "named", "called", "unredact", "unmask"})


def _redaction(text: _Text) -> Intent | None:
    hides = text.has("hide", "hidden") and not text.hits(v.CITATIONS | v.THEME | v.CHARS)
    if not (text.hits(v.SECRETS) or hides):
        return None
    names = _secret_names(text)
    if not names:
        return None
    key = "remove_secret_names" if text.hits(_UNDO_WORDS) else "add_secret_names"
    return Intent("settings.set_redaction", {key: names[:20]})


def _secret_names(text: _Text) -> list[str]:
    """Names that look like a field (`session_id`, `X-Auth-Token`), or a plain word
    introduced as one ("redact sid and ssid", "the csrf parameter", "named token")."""
    names: list[str] = []
    for index, (raw, low) in enumerate(zip(text.raw, text.words, strict=True)):
        if low in _REDACTION_COMMON or not _NAME.fullmatch(raw) or _domain(low):
            continue
        if low.replace(".", "").isdigit():
            continue  # a number is no name
        before = text.words[index - 1] if index else ""
        after = text.words[index + 1] if index + 1 < len(text.words) else ""
        looks = any(c in raw for c in "_-.") or any(c.isdigit() for c in raw)
        looks = looks or any(c.isupper() for c in raw[1:])
        introduced = before in _INTRODUCE or after in v.SECRET_PLACES
        introduced = introduced or (before == "add" and after in ("to", "as"))
        joined = (before in ("and", "or") and bool(names)) or (before == "," and bool(names))
        if looks or introduced or joined or (after == "as" and text.has("treat", "consider")):
            names.append(raw)
    return names


def _citations(text: _Text) -> Intent | Decline | None:
    about = text.hits(v.CITATIONS) or (text.has("source", "sources") and text.hits(v.ANSWERS))
    if not about:
        return None
    hides = text.hits(v.HIDE)
    if not (hides or text.hits(v.SHOW) or text.hits(v.NEGATORS)):
        return Decline("show the citations under answers, or hide them?")
    show = not hides
    if text.hits(v.NEGATORS - v.HIDE) or text.has("t"):  # "don't show", "no more", "never"
        show = not show
    return Intent("settings.set_citations", {"show": show})


_POST_NEGATORS = frozenset({"off", "disabled"})
_PRE_NEGATORS = frozenset(
    {"off", "disable", "exit", "leave", "quit", "t", "without", "hate", "dislike"}
)


def _theme(text: _Text) -> Intent | Decline | None:
    strong = text.hits(v.THEME)
    if not (strong or text.hits(v.MODE) or text.hits(v.PANEL) or _only_a_theme(text)):
        return None
    found: list[tuple[str, bool, int]] = []  # (theme, negated, index)
    for index, word in enumerate(text.words):
        for theme, words in v.THEME_VALUES.items():
            if word in words and (theme != "system" or strong or text.hits(v.MODE)):
                found.append((theme, _negated(text, index), index))
    if not found:
        if strong and text.hits(v.CHANGE_VERBS):
            return Decline("which theme: dark, light, or the same as your system?")
        return None
    chosen = _theme_of(text, found)
    if chosen is None:
        return Decline("which theme: dark, light, or the same as your system?")
    return Intent("settings.set_theme", {"theme": chosen})


def _only_a_theme(text: _Text) -> bool:
    """ "dark please", "Light!": a value and polite words only."""
    content = [w for w in text.words if w not in _POLITE and w not in ("thanks", "thank")]
    values = v.THEME_VALUES["dark"] | v.THEME_VALUES["light"]
    return 0 < len(content) <= 2 and all(w in values or w in ("go", "use") for w in content)


def _negated(text: _Text, index: int) -> bool:
    if text.near_before(index, v.NEGATORS | _PRE_NEGATORS):
        return True
    return any(word in _POST_NEGATORS for word in text.words[index + 1 : index + 3])


_OPPOSITE = {"dark": "light", "light": "dark"}


def _theme_of(text: _Text, found: list[tuple[str, bool, int]]) -> str | None:
    wanted = {theme for theme, negated, _ in found if not negated}
    if len(wanted) == 1:
        return wanted.pop()
    if not wanted:  # "turn off dark mode": the other one
        negated = {theme for theme, _, _ in found}
        only = negated.pop() if len(negated) == 1 else ""
        return _OPPOSITE.get(only)
    last_to = max((i for i, w in enumerate(text.words) if w in ("to", "into")), default=-1)
    after_to = {theme for theme, negated, index in found if index > last_to and not negated}
    return after_to.pop() if last_to >= 0 and len(after_to) == 1 else None


def _capture_limit(text: _Text) -> Intent | Decline | None:
    about = text.hits(v.CHARS) or (text.hits(v.CAPTURE) and text.hits(v.SIZE))
    if not about or text.hits(v.COLLECTION):
        return None
    counts = [n for n in text.numbers if not _counts_something_else(text, n)]
    if not counts and text.has("default", "original", "standard"):
        from ..defaults import CAPTURE_MAX_CHARS

        return Intent("settings.set_capture_limit", {"max_chars": CAPTURE_MAX_CHARS})
    if not counts:
        if text.hits(v.CHANGE_VERBS) or text.has("limit", "max", "maximum"):
            return Decline(_HOW_MANY, ("settings.set_capture_limit",))
        return None
    after_to = [n for n in counts if n.start and text.words[n.start - 1] in ("to", "at", "=")]
    number = (after_to or counts)[-1]
    if _negated_in_clause(text)[number.start]:  # "don't limit captures to 50000"
        return Decline(_HOW_MANY, ("settings.set_capture_limit",))
    value = round(number.value)
    low, high = capture_bounds()
    if not low <= value <= high:
        return Decline(
            f"a captured page can keep {low:,} to {high:,} characters, not {value:,}",
            ("settings.set_capture_limit",),
        )
    return Intent("settings.set_capture_limit", {"max_chars": value})


_HOW_MANY = "how many characters should a captured page keep (1,000 to 10,000,000)?"


@functools.cache
def capture_bounds() -> tuple[int, int]:
    """The capture length's bounds, from the registry's schema (one definition)."""
    from ..config.schema import Capture

    found = {
        kind: getattr(item, kind)
        for item in Capture.model_fields["max_chars"].metadata
        for kind in ("ge", "le")
        if getattr(item, kind, None) is not None
    }
    return int(found["ge"]), int(found["le"])


def _counts_something_else(text: _Text, number: numbers.Number) -> bool:
    """ "5 seconds", "50 tokens", "20 sources": a number of something else."""
    following = text.words[number.end : number.end + 1]
    return bool(following) and (following[0] in v.OTHER_UNITS or following[0] in v.CAPTURE)


_NAME_END = (
    *(" by default", " as default", " as the default", " as my default", " from now on"),
    *(" please", " thanks", " thank you", " instead", " going forward", " for me"),
    *(" collection", " folder", " now", " from here on", " for now on", " then"),
)
_NAME_START = ("the ", "my ", "a ", "collection ", "called ", "named ", "folder ")
_DESTINATION = ("to", "into", "in", "be", "is", "under", "inside")


def _default_collection(text: _Text) -> Intent | Decline | None:
    named = (text.has("default") or text.has("default_collection")) and text.hits(v.COLLECTION)
    named = named or (text.hits(v.COLLECTION) and text.has("set", "change", "switch", "use"))
    routes = (
        (text.hits(v.CAPTURE) or (text.hits(v.SAVED) and text.hits(v.GENERAL)))
        and text.hits(v.ROUTE_VERBS)
        and (text.hits(v.GENERAL) or text.hits(v.COLLECTION) or text.has("captures"))
        and not text.has("this", "these", "that", "current")
    ) or (text.has("default") and text.has("save", "put", "file", "store", "saved"))
    if not (named or routes):
        return None
    name = _collection_name(text)
    if name is None or text.hits(v.NEGATORS):
        return Decline(
            "which collection should new captures go to?", ("settings.set_default_collection",)
        )
    if _says_more(name):
        return Decline(
            "one change at a time: say which collection new captures go to on its own",
            ("settings.set_default_collection",),
        )
    return Intent("settings.set_default_collection", {"collection": name})


def _collection_name(text: _Text) -> str | None:
    quoted = _QUOTED.search(text.original)
    if quoted:
        return _clean_name(quoted.group(1))
    name = _between(text, ("make ", "use ", "choose ", "pick "), _AS_DEFAULT)
    if not name and (":" in text.original or "=" in text.original):
        name = _ASSIGN.split(text.original)[-1]
    if not name:
        index = max((i for i, w in enumerate(text.words) if w in _DESTINATION), default=-1)
        name = text.split.rest(index + 1) if index >= 0 else ""
    return _clean_name(name)


_AS_DEFAULT = (" my default", " the default", " as ", " default collection")


def _clean_name(name: str) -> str | None:
    name = name.strip().strip(_TRIM).strip()
    changed = True
    while changed:
        changed = False
        for tail in _NAME_END:
            if name.lower().endswith(tail):
                name, changed = name[: -len(tail)].rstrip(" ,"), True
        for head in _NAME_START:
            if name.lower().startswith(head):
                name, changed = name[len(head) :].lstrip(), True
    name = name.strip().strip(_TRIM).strip()
    if name.lower() in ("default", "the default", "it", "one", "another", "a different one"):
        return None
    return name if 0 < len(name) <= 200 and "\n" not in name else None


_MORE_VERBS = frozenset(
    {"set", "use", "make", "turn", "switch", "change", "enable", "disable", "hide", "show"}
)


def _says_more(name: str) -> bool:
    """A name that holds a second request ("Research and use dark mode")."""
    words = [w.lower() for w in name.replace(",", " , ").split()]
    return len(words) > 8 or any(
        w in ("and", "then", ",") and following in _MORE_VERBS
        for w, following in itertools.pairwise(words)
    )


def _between(text: _Text, starts: tuple[str, ...], ends: tuple[str, ...]) -> str:
    for start in starts:
        begin = text.lower.find(start)
        if begin < 0:
            continue
        begin += len(start)
        stops = [text.lower.find(end, begin) for end in ends]
        stop = min((s for s in stops if s >= 0), default=-1)
        if stop > begin:
            return text.original[begin:stop]
    return ""


def _default_provider(text: _Text) -> Intent | Decline | None:
    """The provider named, its kind, `offline`, or a local / cloud one; one the words say
    not to use ("don't use the cloud model") is no choice: asked back."""
    found = _provider_choice(text)
    if not isinstance(found, Intent):
        return found
    chosen = found.arguments["provider"]
    facts = next((p for p in text.providers if p.id == chosen), None)
    named = {_squash(chosen)} | ({_squash(facts.kind)} if facts else set())
    place = v.OFFLINE if facts is None else v.LOCAL if facts.local else v.CLOUD
    negated = _negated_in_clause(text)
    if any(
        (_squash(word) in named or word in place) and negated[index]
        for index, word in enumerate(text.words)
    ):
        return _which_provider(text, asking=True)
    return found


_NOT_WANTED = v.NEGATORS | frozenset({"hate", "dislike", "avoid", "instead", "t"})
_CLAUSE_MARKS = frozenset(",;.!?")
_CLAUSE_WORDS = frozenset({"but", "rather"})


def _negated_in_clause(text: _Text) -> list[bool]:
    """For each word, whether a word saying "not" comes before it in its clause ("I don't
    want answers from the cloud"; not "don't use a model, answer offline"). One pass."""
    flags: list[bool] = []
    negated = False
    end = 0
    for word, raw, start in zip(text.words, text.raw, text.split.starts, strict=True):
        gap = text.original[end:start]
        if word in _CLAUSE_WORDS or any(mark in _CLAUSE_MARKS for mark in gap):
            negated = False
        flags.append(negated)
        negated = negated or word in _NOT_WANTED
        end = start + len(raw)
    return flags


def _provider_choice(text: _Text) -> Intent | Decline | None:
    if text.hits(v.OFFLINE) and text.hits(v.MODE) and not text.hits(v.CAPTURE):
        return Intent("settings.set_default_provider", {"provider": "offline"})  # "offline mode"
    if not text.hits(v.PROVIDER_VERBS):
        return None
    named = _named_provider(text)
    if named is not None:
        return Intent("settings.set_default_provider", {"provider": named})
    if text.hits(v.OFFLINE) and not text.hits(v.CAPTURE):
        return Intent("settings.set_default_provider", {"provider": "offline"})
    kinds = [p for p in text.providers if p.kind.lower() in text.vocabulary]
    if len(kinds) == 1 or (kinds and text.hits(v.MODEL)):
        return Intent("settings.set_default_provider", {"provider": kinds[0].id})
    wanted = sorted(text.vocabulary & v.KINDS)
    if wanted and not kinds:
        return Decline(
            f"no {wanted[0]} provider is configured: add one with `laika models add`",
            ("settings.set_default_provider",),
        )
    if not text.hits(v.MODEL):
        return None
    return _by_place(text)


def _named_provider(text: _Text) -> str | None:
    """A configured id in the words: as written, or split in words (`llama cpp`)."""
    squashed = [_squash(word) for word in text.words]
    for provider in text.providers:
        if provider.id.lower() in text.vocabulary:
            return provider.id
        wanted = _squash(provider.id)
        for index, first in enumerate(squashed):
            if not first or not wanted.startswith(first) or first == wanted:
                continue
            joined = "".join(squashed[index : index + 3])
            if joined.startswith(wanted) and _squash_ends(squashed[index : index + 3], wanted):
                return provider.id
    return None


def _squash_ends(parts: list[str], wanted: str) -> bool:
    """Whether some prefix of `parts` joins to exactly `wanted`."""
    joined = ""
    for part in parts:
        joined += part
        if joined == wanted:
            return True
    return False


def _squash(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


def _by_place(text: _Text) -> Intent | Decline | None:
    if text.hits(v.LOCAL):
        wanted, where = True, "local"
    elif text.hits(v.CLOUD):
        wanted, where = False, "cloud"
    else:
        return _which_provider(text)
    found = [p for p in text.providers if p.local == wanted]
    if not found:
        return Decline(f"no {where} model provider is configured: add one with `laika models add`")
    return Intent("settings.set_default_provider", {"provider": found[0].id})


def _which_provider(text: _Text, *, asking: bool = False) -> Decline | None:
    """A provider named that is not configured is declined; none named, asked."""
    ids = [p.id for p in text.providers]
    known = ", ".join([*ids, "offline"])
    if asking:
        return Decline(
            f"which provider should answer: {known}?", ("settings.set_default_provider",)
        )
    unknown = _unknown_name(text)
    if unknown:
        return Decline(
            f"no provider {unknown!r} is configured (the providers: {known}); `laika models "
            "add` adds one",
            ("settings.set_default_provider",),
        )
    if not text.has("default", "switch", "change", "use", "pick", "choose", "swap"):
        return None
    return Decline(f"which provider should answer: {known}?", ("settings.set_default_provider",))


def _unknown_name(text: _Text) -> str | None:
    """The word after "use"/"to"/"with" when it is no word the matcher knows."""
    for index, word in enumerate(text.words[:-1]):
        following = text.words[index + 1]
        if word not in ("use", "to", "with") or following in v.KNOWN | _POLITE | _FILLER:
            continue
        if any(c.isdigit() or c == "-" for c in following) or following.isalpha():
            return text.raw[index + 1]
    return None


def _unmatched(text: _Text) -> Decline:
    """No rule read the request: ask which setting when it says "it" or names only words of
    the settings; else decline, with the closest things that can be changed."""
    suggestions = _suggestions(text)
    content = [w for w in text.words if w not in _POLITE and w not in _FILLER]
    counted = {i for n in text.numbers for i in range(n.start, n.end)}
    neutral = (v.KNOWN - v.ELSEWHERE) | _KNOWN_ELSE | v.PRONOUNS
    unknown = [
        w
        for i, w in enumerate(text.words)
        if w in content and i not in counted and w not in neutral
    ]
    changing = text.hits(v.CHANGE_VERBS) or text.has("bigger", "smaller")
    if changing and not unknown and text.hits(v.PRONOUNS):
        return Decline("which setting do you mean, and what should it be?", suggestions)
    if text.has("default") and changing and not unknown:
        return Decline(
            "the default collection, or the default model provider?",
            ("settings.set_default_collection", "settings.set_default_provider"),
        )
    if changing and not unknown and _scores(text):
        return Decline("which setting do you mean, and what should it be?", suggestions)
    return Decline(NO_TOOL, suggestions)


_KNOWN_ELSE = frozenset(
    {"t", "s", "d", "ll", "re", "ve", "m", "bigger", "smaller", "higher", "lower", "more"}
    | {"less", "again", "back", "up", "down", "on", "off", "different", "other", "another"}
)


def _scores(text: _Text) -> dict[str, int]:
    scores = {
        tool: sum(word in hints for word in text.vocabulary) for tool, hints in v.HINTS.items()
    }
    return {tool: score for tool, score in scores.items() if score}


def _suggestions(text: _Text) -> tuple[str, ...]:
    """The three tools whose words the request shares most (ties: the catalog's order);
    the capture length, the default collection and the theme when it shares none."""
    scores = _scores(text)
    order = list(v.HINTS)
    ranked = sorted(scores, key=lambda tool: (-scores[tool], order.index(tool)))
    picked = [tool for tool in ranked if not tool.startswith("rules.")][:3]
    for tool in v.DEFAULT_SUGGESTIONS:
        if len(picked) >= 3:
            break
        if tool not in picked:
            picked.append(tool)
    return tuple(picked)


RULES: tuple[Rule, ...] = (
    _event_rules,
    _show,
    _forget_decision,
    _forget_preference,
    _set_preference,
    _allow_domain,
    _redaction,
    _citations,
    _theme,
    _capture_limit,
    _default_collection,
    _default_provider,
)
"""First change read wins: the specific phrasings before the general ones. A question (a
setting without its value) is kept while the later rules are tried."""
_VALUE_RULES: tuple[Rule, ...] = (
    _citations,
    _theme,
    _capture_limit,
    _default_collection,
    _default_provider,
)
"""The rules that set one value: two of them reading one request is two changes."""
