"""The offline intent matcher: a user's sentence -> one settings tool with its arguments, or
a decline. Deterministic and small on purpose (no model): it knows a few phrasings per tool
and declines anything else, so the built-in runtime can change settings too and nothing
free-form ever is.

Bounded, linear time over any text: the text is cut at MAX_TEXT characters (longer is
declined), split into words by one regular expression with no nested repetition, and each
rule reads the word list a fixed number of times with set lookups and `str.find`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import intent_rules

MAX_TEXT = 2_000
"""Characters of a request the matcher reads; a longer one is declined."""
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@-]*")
_DIGIT_GROUP = re.compile(r"(?<=\d)[,_](?=\d{3})")
_NUMBER = re.compile(r"\d{1,9}(?:\.\d{1,3})?")
_DOMAIN = re.compile(r"[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+")
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TRIM = ".,;:!?)('\"`\u201c\u201d\u2018\u2019"

DECLINE_WORDS = frozenset(
    {"gate", "key", "keys", "apikey", "password", "passwords", "credential", "credentials"}
    | {"send", "upload", "email", "erase", "wipe", "bypass", "jailbreak"}
)
"""Words of requests no settings tool serves (the gate, keys, sending data away): declined
before any rule reads them, so a domain or a name in them is never acted on."""


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
    reason: str


@dataclass(frozen=True)
class _Text:
    """The request as words (lowercase, trimmed), with the original for names and values."""

    original: str
    lower: str
    words: list[str]
    raw: list[str]
    vocabulary: frozenset[str]
    providers: Sequence[ProviderFacts] = field(default_factory=tuple)
    rule_ids: Sequence[str] = field(default_factory=tuple)
    transform_types: Sequence[str] = field(default_factory=tuple)

    def has(self, *words: str) -> bool:
        return any(word in self.vocabulary for word in words)

    def after(self, *markers: str) -> str:
        """The original text after the last of `markers` found (lowercase match), trimmed."""
        best = -1
        for marker in markers:
            found = self.lower.rfind(marker)
            if found >= 0:
                best = max(best, found + len(marker))
        return "" if best < 0 else self.original[best:].strip().strip(_TRIM).strip()


Rule = Callable[[_Text], "Intent | Decline | None"]


def match(
    text: str,
    providers: Sequence[ProviderFacts] = (),
    *,
    rule_ids: Sequence[str] = (),
    transform_types: Sequence[str] = (),
) -> Intent | Decline:
    """The one tool `text` asks for, or why none does. `rule_ids` (the event rules there are)
    and `transform_types` let it read a rule's deletion or creation."""
    if len(text) > MAX_TEXT:
        return Decline(f"the request is longer than {MAX_TEXT:,} characters: say it briefly")
    cleaned = _DIGIT_GROUP.sub("", text)
    raw = [word.rstrip(_TRIM) for word in _WORD.findall(cleaned)]
    raw = [word for word in raw if word]
    words = [word.lower() for word in raw]
    parsed = _Text(
        cleaned,
        cleaned.lower(),
        words,
        raw,
        frozenset(words),
        providers,
        rule_ids,
        transform_types,
    )
    if parsed.has(*DECLINE_WORDS) or _disables_the_policy(parsed):
        return Decline(
            "no settings tool does that: they never send data anywhere, touch keys or "
            "turn off the Policy Gate"
        )
    for rule in RULES:
        found = rule(parsed)
        if found is not None:
            return found
    return Decline("no settings tool matches the request")


def _disables_the_policy(text: _Text) -> bool:
    turning_off = text.has("disable", "off", "remove", "delete", "stop", "skip", "ignore")
    one_rule = text.has(*_DECISION_WORDS)  # "remove the policy rule allow-x": one rule
    return turning_off and not one_rule and text.has("policy", "approvals", "safety", "guard")


# --- the rules, in the order they are tried ---------------------------------------------


def _event_rules(text: _Text) -> Intent | None:
    """Event rules (`intent_rules`): a sentence making one, a deletion naming one, a list."""
    found = intent_rules.create(text.original, text.transform_types, _domain)
    found = found or intent_rules.list_or_delete(text.words, text.raw, text.rule_ids)
    return None if found is None else Intent(*found)


_SETTINGS_WORDS = ("settings", "setting", "config", "configuration")
_SHOWN_PATHS = {
    "provider": "providers",
    "providers": "providers",
    "model": "providers",
    "capture": "capture",
    "captures": "capture",
    "limit": "capture.max_chars",
    "collection": "capture.default_collection",
    "redaction": "redaction",
    "secret": "redaction",
    "secrets": "redaction",
    "theme": "ui.theme",
    "citations": "ui.show_citations",
    "preferences": "user.preferences",
    "preference": "user.preferences",
    "policy": "policy",
    "rules": "policy",
}


def _show(text: _Text) -> Intent | None:
    asks = bool(text.words) and text.words[0] in ("what", "which", "how")
    named = text.has(*_SETTINGS_WORDS)
    if not (asks or (named and text.has("show", "list", "display", "view"))):
        return None
    path = _shown_path(text.words)
    if path is None and not named:  # a question about something else
        return None
    return Intent("settings.show", {} if path is None else {"path": path})


def _shown_path(words: list[str]) -> str | None:
    """The most specific section a question names (`limit` over `capture`)."""
    found = [_SHOWN_PATHS[word] for word in words if word in _SHOWN_PATHS]
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
    if not (text.has(*_FORGET_WORDS) and text.has("preference", "preferences")):
        return None
    key = _word_after(text, ("preference", "preferences"))
    if key is None:  # "forget my language preference"
        key = _word_before(text, ("preference",))
    return Intent("settings.forget_preference", {"key": key}) if key else None


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


_FILLER = frozenset({"my", "the", "a", "an", "to", "is", "that", "of", "for", "all", "your"})


def _set_preference(text: _Text) -> Intent | None:
    if text.has("preference", "preferences") and text.has("set", "save", "store", "change"):
        key = _word_after(text, ("preference", "preferences"))
        value = text.after(" to ", " = ", " as ")
    elif text.words[:1] == ["remember"]:
        key = _word_after(text, ("my",)) or _word_after(text, ("remember",))
        value = text.after(" is ", " = ", " are ")
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


_ALLOW_WORDS = ("allow", "trust", "whitelist", "allowlist", "permit")
_TOOL_WORDS = {
    "capture": ("source.capture", "source.refresh"),
    "captures": ("source.capture", "source.refresh"),
    "capturing": ("source.capture", "source.refresh"),
    "open": ("browser.open_tab", "browser.navigate"),
    "opening": ("browser.open_tab", "browser.navigate"),
    "visit": ("browser.open_tab", "browser.navigate"),
    "navigate": ("browser.open_tab", "browser.navigate"),
}


def _allow_domain(text: _Text) -> Intent | None:
    if not text.has(*_ALLOW_WORDS):
        return None
    domains = [d for d in (_domain(word) for word in text.words) if d]
    if not domains:
        return None
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
    if host in _setting_paths():
        return None
    last = host.rsplit(".", 1)[-1]
    return host if last.isalpha() and len(host) <= 253 else None


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
    return frozenset(paths)


_SECRET_WORDS = ("secret", "secrets", "redact", "redacted", "redacting", "redaction")
_UNDO_WORDS = ("stop", "don", "not", "longer", "unredact", "remove", "no", "never")
_REDACTION_COMMON = frozenset(
    {"treat", "treating", "as", "a", "an", "the", "secret", "secrets", "redact", "redacted"}
    | {"redacting", "redaction", "sensitive", "please", "value", "values", "field", "fields"}
    | {"named", "called", "header", "headers", "parameter", "parameters", "param", "also"}
    | {"too", "always", "stop", "don", "t", "not", "longer", "no", "remove", "from", "list"}
    | {"add", "to", "my", "of", "and", "or", "hide", "mark", "consider", "its", "their"}
    | {"unredact", "never", "any", "more", "anymore", "is", "are", "names", "name", "hidden"}
)


def _redaction(text: _Text) -> Intent | None:
    if not text.has(*_SECRET_WORDS):
        return None
    names = [
        raw
        for raw, low in zip(text.raw, text.words, strict=True)
        if low not in _REDACTION_COMMON and _NAME.fullmatch(raw)
    ]
    if not names:
        return None
    key = "remove_secret_names" if text.has(*_UNDO_WORDS) else "add_secret_names"
    return Intent("settings.set_redaction", {key: names[:20]})


_HIDE_WORDS = ("hide", "off", "disable", "no", "stop", "without", "don", "never", "not")


def _citations(text: _Text) -> Intent | None:
    if not text.has("citation", "citations"):
        return None
    return Intent("settings.set_citations", {"show": not text.has(*_HIDE_WORDS)})


def _theme(text: _Text) -> Intent | None:
    if not text.has("theme", "mode", "appearance", "colours", "colors", "colour", "color"):
        return None
    for theme in ("dark", "light", "system"):
        if text.has(theme):
            return Intent("settings.set_theme", {"theme": theme})
    return None


_CAPTURE_WORDS = ("capture", "captures", "captured", "page", "pages")
_SIZE_WORDS = ("limit", "max", "maximum", "most", "characters", "chars", "long", "size", "keep")
_THOUSANDS = ("k", "thousand")


def _capture_limit(text: _Text) -> Intent | None:
    if not (text.has(*_CAPTURE_WORDS) and text.has(*_SIZE_WORDS)):
        return None
    for index, word in enumerate(text.words):
        number = _count(word, text.words[index + 1 : index + 2])
        if number is not None:
            return Intent("settings.set_capture_limit", {"max_chars": number})
    return None


def _count(word: str, following: list[str]) -> int | None:
    scale = 1
    if word.endswith("k") and _NUMBER.fullmatch(word[:-1]):
        word, scale = word[:-1], 1000
    elif following and following[0] in _THOUSANDS:
        scale = 1000
    if not _NUMBER.fullmatch(word):
        return None
    return round(float(word) * scale)


_COLLECTION_MARKERS = (
    *(" collection to ", " collection is ", " captures to ", " pages to "),
    *(" captures into ", " pages into ", " captures in ", " pages in "),
)


def _default_collection(text: _Text) -> Intent | None:
    if not (text.has("collection") or text.has("default")):
        return None
    name = _collection_name(text)
    return Intent("settings.set_default_collection", {"collection": name}) if name else None


def _collection_name(text: _Text) -> str | None:
    name = text.after(*_COLLECTION_MARKERS)
    if not name and text.has("default") and text.has("collection"):
        name = _between(text, ("make ", "use "), (" my default", " the default", " as "))
    for tail in (" by default", " as default", " as the default", " from now on", " please"):
        if name.lower().endswith(tail):
            name = name[: -len(tail)]
    name = name.strip().strip(_TRIM).strip()
    return name if 0 < len(name) <= 200 and "\n" not in name else None


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


_PROVIDER_VERBS = (
    *("use", "switch", "default", "make", "set", "answer", "answers", "prefer"),
    *("change", "pick", "choose", "run"),
)
_LOCAL_WORDS = ("local", "locally", "on-device", "machine", "computer", "laptop", "offline-capable")
_CLOUD_WORDS = ("cloud", "remote", "online", "hosted")


def _default_provider(text: _Text) -> Intent | Decline | None:
    if not text.has(*_PROVIDER_VERBS):
        return None
    named = [p.id for p in text.providers if p.id.lower() in text.words]
    if named:
        return Intent("settings.set_default_provider", {"provider": named[0]})
    if text.has("offline", "built-in", "builtin"):
        return Intent("settings.set_default_provider", {"provider": "offline"})
    if not text.has("model", "models", "provider", "llm", "answers", "runtime", "ai"):
        return None
    kinds = [p for p in text.providers if p.kind.lower() in text.words]
    if kinds:
        return Intent("settings.set_default_provider", {"provider": kinds[0].id})
    return _by_place(text)


def _by_place(text: _Text) -> Intent | Decline | None:
    if text.has(*_LOCAL_WORDS):
        wanted, where = True, "local"
    elif text.has(*_CLOUD_WORDS):
        wanted, where = False, "cloud"
    else:
        return None
    found = [p for p in text.providers if p.local == wanted]
    if not found:
        return Decline(f"no {where} model provider is configured: add one with `laika models add`")
    return Intent("settings.set_default_provider", {"provider": found[0].id})


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
"""First match wins: the specific phrasings before the general ones."""
