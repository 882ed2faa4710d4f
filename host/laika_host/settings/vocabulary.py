"""The words people use for each setting the settings tools change: one table per setting,
read by the offline matcher (`intent`) to find which setting a request is about, by a
question about the settings to find which one it asks about, and by a decline to suggest the
closest things that can be changed.

General on purpose: synonyms and inflections, not sentences. A word here is also a word the
matcher corrects small typos into (`words.correct`).
"""

from __future__ import annotations

from .words import vocabulary

CHARS = frozenset({"characters", "character", "chars", "char", "letters", "max_chars"})
CAPTURE = frozenset(
    {"capture", "captures", "captured", "capturing", "page", "pages", "webpage", "webpages"}
    | {"clip", "clips", "clipping", "article", "articles", "snapshot", "snapshots"}
)
SIZE = frozenset(
    {"limit", "limits", "max", "maximum", "most", "long", "length", "size", "keep", "kept"}
    | {"cap", "truncate", "truncated", "cut", "bound", "cutoff", "longest", "lengths"}
    | {"shorter", "longer", "bigger", "smaller", "larger"}
)
OTHER_UNITS = frozenset(
    {"second", "seconds", "secs", "sec", "minute", "minutes", "mins", "hour", "hours", "day"}
    | {"days", "token", "tokens", "source", "sources", "px", "pt", "points", "item", "items"}
    | {"result", "results", "percent", "word", "words", "line", "lines", "times", "tabs"}
    | {"collections", "rules", "mb", "kb", "gb", "bytes", "pixels", "questions", "answers"}
)
"""A number followed by one of these is not a count of characters."""

THEME = frozenset(
    {"theme", "themes", "appearance", "colour", "colours", "color", "colors", "scheme"}
    | {"skin", "look", "background", "palette", "ui.theme"}
)
MODE = frozenset({"mode", "modes"})
PANEL = frozenset(
    {"panel", "sidepanel", "sidebar", "ui", "interface", "screen", "app", "window", "laika"}
)
THEME_VALUES: dict[str, frozenset[str]] = {
    "dark": frozenset({"dark", "darker", "night", "black", "dim", "darkmode"}),
    "light": frozenset({"light", "lighter", "day", "white", "bright", "lightmode"}),
    "system": frozenset(
        {"system", "os", "automatic", "auto", "computer", "device", "macos", "windows"}
    ),
}

CITATIONS = frozenset(
    {"citation", "citations", "cite", "cites", "citing", "reference", "references"}
    | {"footnote", "footnotes", "chip", "chips", "show_citations", "ui.show_citations"}
)
ANSWERS = frozenset({"answer", "answers", "reply", "replies", "response", "responses"})
HIDE = frozenset(
    {"hide", "hidden", "hiding", "off", "disable", "disabled", "remove", "false", "drop"}
    | {"omit", "suppress", "without", "less", "fewer", "none", "rid", "ditch", "lose"}
    | {"eliminate", "skip"}
)
SHOW = frozenset(
    {"show", "showing", "shown", "on", "enable", "enabled", "display", "displayed", "visible"}
    | {"see", "true", "back", "keep", "bring", "want", "include", "add", "yes", "restore"}
    | {"like", "need", "use", "put", "turn"}
)
"""Words that ask for the citations to be shown (HIDE: hidden)."""
NEGATORS = frozenset({"don", "not", "never", "no", "stop", "nt", "dont", "longer"})

COLLECTION = frozenset(
    {"collection", "collections", "folder", "folders", "default_collection"}
    | {"capture.default_collection"}
)
ROUTE_VERBS = frozenset(
    {"save", "saved", "saving", "put", "send", "go", "goes", "file", "filed", "store"}
    | {"stored", "land", "add", "added", "sent", "placed", "place"}
)
GENERAL = frozenset(
    {"default", "new", "now", "always", "automatically", "should", "future", "all", "every"}
    | {"each", "forward", "onwards", "anymore"}
)
"""Words that make "save pages to X" a lasting default, not one page filed once."""
SAVED = CAPTURE | {"everything", "anything", "things", "stuff", "bookmarks", "links"}
"""What a request routes to a collection ("save everything to Inbox by default")."""

MODEL = frozenset(
    {"model", "models", "provider", "providers", "llm", "llms", "ai", "answers", "answer"}
    | {"runtime", "engine", "backend", "providers.default"}
)
PROVIDER_VERBS = frozenset(
    {"use", "switch", "default", "make", "set", "answer", "answers", "prefer", "change"}
    | {"pick", "choose", "run", "swap", "go", "move", "select", "enable", "activate"}
)
LOCAL = frozenset(
    {"local", "locally", "on-device", "machine", "computer", "laptop", "own", "offline-capable"}
)
CLOUD = frozenset({"cloud", "remote", "online", "hosted", "internet"})
OFFLINE = frozenset({"offline", "built-in", "builtin", "extractive"})
KINDS = frozenset({"ollama", "openai", "anthropic", "openrouter", "llama.cpp", "vllm"})

SECRETS = frozenset(
    {"secret", "secrets", "redact", "redacted", "redacting", "redaction", "mask", "masked"}
    | {"masking", "sensitive", "obfuscate", "scrub", "conceal", "unredact", "private"}
)
SECRET_PLACES = frozenset(
    {"header", "headers", "parameter", "parameters", "param", "params", "field", "fields"}
    | {"cookie", "cookies", "value", "values", "name", "names", "query", "variable"}
)

PREFERENCES = frozenset({"preference", "preferences", "prefs", "pref"})
SETTINGS = frozenset({"settings", "setting", "config", "configuration", "options", "preferences"})
ALLOW = frozenset(
    {"allow", "allows", "allowed", "allowing", "trust", "trusted", "whitelist", "allowlist"}
    | {"trusting", "whitelisted", "allowlisted"}
    | {"permit", "permitted", "let"}
)
DECISIONS = frozenset({"decision", "decisions", "rule", "approval", "remembered", "approvals"})
CHANGE_VERBS = frozenset(
    {"set", "change", "make", "turn", "switch", "increase", "decrease", "raise", "lower"}
    | {"reduce", "bump", "adjust", "update", "modify", "put", "use", "enable", "disable"}
    | {"double", "halve", "toggle", "flip"}
)
PRONOUNS = frozenset({"it", "that", "this", "them", "those", "one"})

SHOWN_PATHS: dict[str, frozenset[str]] = {
    "providers": MODEL | KINDS | frozenset({"provider"}),
    "capture": CAPTURE,
    "capture.max_chars": CHARS | frozenset({"limit", "length", "max"}),
    "capture.default_collection": COLLECTION,
    "redaction": SECRETS,
    "ui.theme": THEME | MODE | {"darkmode", "lightmode"},
    "ui.show_citations": CITATIONS,
    "user.preferences": PREFERENCES - {"preferences"} | {"preferences"},
    "policy": frozenset({"policy", "permissions", "permission", "allowed", "trusted", "rules"}),
}
"""A question's words -> the section it asks about (the most specific named wins)."""

HINTS: dict[str, frozenset[str]] = {
    "settings.set_capture_limit": CHARS | CAPTURE | SIZE | {"bigger", "smaller", "longer"},
    "settings.set_default_collection": COLLECTION | {"default", "save", "inbox"},
    "settings.set_theme": THEME | MODE | PANEL | {"dark", "light", "font", "text", "colour"},
    "settings.set_citations": CITATIONS | ANSWERS | {"sources"},
    "settings.set_default_provider": MODEL | KINDS | LOCAL | CLOUD | OFFLINE,
    "settings.set_redaction": SECRETS | SECRET_PLACES | {"privacy", "hide"},
    "settings.set_preference": PREFERENCES | {"remember", "language", "timezone", "units"},
    "settings.forget_preference": PREFERENCES | {"forget"},
    "settings.show": SETTINGS | {"show", "current", "see", "view", "list"},
    "policy.allow_domain": ALLOW | {"site", "sites", "domain", "website", "websites", "block"},
    "policy.forget_decision": DECISIONS | {"forget", "revoke", "permission"},
    "rules.create": frozenset({"rule", "rules", "automation", "automate", "when", "whenever"}),
    "rules.delete": frozenset({"rule", "automation", "delete"}),
    "rules.list": frozenset({"rules", "automations"}),
}
"""What each tool is about, for the closest suggestions of a decline."""
ELSEWHERE = frozenset(
    {"font", "fonts", "text", "zoom", "volume", "language", "timezone", "units", "privacy"}
    | {"site", "sites", "website", "websites", "domain", "block", "notifications"}
)
"""Words that hint at a tool (for suggestions) but name something no tool sets: a request
about them is declined, not asked back."""
DEFAULT_SUGGESTIONS = (
    "settings.set_capture_limit",
    "settings.set_default_collection",
    "settings.set_theme",
)

KNOWN = vocabulary(
    CHARS, CAPTURE, SIZE, OTHER_UNITS, THEME, MODE, PANEL, *THEME_VALUES.values(), CITATIONS,
    ANSWERS, HIDE, COLLECTION, ROUTE_VERBS, GENERAL, MODEL, PROVIDER_VERBS, LOCAL, CLOUD,
    OFFLINE, KINDS, SHOW, SECRETS, SECRET_PLACES, PREFERENCES, SETTINGS, ALLOW, DECISIONS,
    CHANGE_VERBS, *HINTS.values(),
    {"show", "showing", "display", "enable", "visible", "forget", "remember", "switch"},
    {"delete", "revoke", "allow", "different", "another", "other", "limit", "default"},
)  # fmt: skip
"""Every word the matcher looks for: the words small typos are corrected into."""
