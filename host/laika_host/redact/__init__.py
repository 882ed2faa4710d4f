"""The one place that finds secrets in what Laika stores, logs or sends, and replaces them.

Pages, models and the extension are untrusted, and a key shown on a page (or echoed by a
model) must not reach the database, a log or a model. Three entry points:

- `redact_text`: free text (Markdown, titles, answers, log lines): self-identifying key
  formats (`_formats`), private key blocks, header lines, URL user info and the values of
  secret-named settings in any common syntax (`_settings`; names are judged by `_names`).
- `redact_url`: a URL: no user info, no secret-named query or fragment parameters, and no
  key in the path.
- `redact_value`: parsed JSON: secret-named keys lose their value, URLs and text as above.
- `redact_prefix`: text cut to a bound (an error message, a logged line), redacted before
  the cut: a key cut in two matches no rule, so cutting first would keep its head.
- `redaction_stamp`: which redaction a text has had (rules version and extra names), stored
  with each source so that text already redacted is not redacted again on its way out.
- `pinned`: wraps a function so that every redaction inside it reads the user's extra secret
  names once (a capture redacts hundreds of links and texts: one settings read, not one each).
- `holds_secret` / `says_secret`: for what Laika would keep as a setting (a preference, an
  event rule, a sentence asking to change settings), which is refused rather than rewritten:
  a value or name the rules above would hide, or text saying it holds a secret in words
  (`_plain`: "my wifi passphrase is hunter2hunter2").

Every rule runs in linear time: patterns are anchored by a literal or a boundary, their
quantifiers are bounded or never nested, scans remember where a run or line ends, and cheap
substring tests skip rules whose hint is absent. The public list is docs/REDACTION.md.
"""

from __future__ import annotations

from typing import Any

from ._extra import pinned
from ._names import MAX_NAME, Strength, is_secret_name, name_strength, name_words
from ._plain import says_secret as _says_secret
from ._spans import REDACTED
from ._stamp import stamp as redaction_stamp
from ._text import MAX_PASSES, redact_decoded, redact_text
from ._urls import clean_url, drop_secret_params
from ._values import ordinary

__all__ = [
    "MAX_NAME",
    "REDACTED",
    "drop_secret_params",
    "holds_secret",
    "is_secret_name",
    "name_words",
    "pinned",
    "redact_prefix",
    "redact_string",
    "redact_text",
    "redact_url",
    "redact_value",
    "redaction_stamp",
    "says_secret",
]


@pinned
def redact_url(url: str) -> str:
    """`url` without user info, secret-named query or fragment parameters, or keys in it.

    Works on any string, including URLs Python cannot parse (a bad port or IPv6 literal):
    nothing is kept just because the URL is malformed. Unchanged URLs keep their exact form.
    """
    for _ in range(MAX_PASSES):
        redacted = redact_text(clean_url(url, drop_user=True, rules=redact_decoded))
        if redacted == url:
            break
        url = redacted
    return url


@pinned
def redact_prefix(text: str, limit: int) -> str:
    """At most `limit` characters of `text`, redacted first (see the module docstring); a
    marker the cut would split is left out whole, so the result reads the same redacted again."""
    redacted = redact_text(text)
    cut = redacted[:limit]
    marker = cut.find("[", max(0, limit - len(REDACTED) + 1))
    if marker >= 0 and redacted.startswith(REDACTED, marker):
        return cut[:marker]
    return cut


@pinned
def redact_value(value: Any) -> Any:
    """A copy of parsed JSON with secret-named keys' values and every secret in strings
    replaced; strings that are URLs go through `redact_url`."""
    if isinstance(value, dict):
        return {key: _redact_item(str(key), item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(item) for item in value]
    if isinstance(value, str):
        return redact_string(value)
    return value


def _redact_item(key: str, item: Any) -> Any:
    """Under a secret key every non-empty string or container goes, except a literal
    (`"none"`) or, under a weak name, a small number (`{"session": "3"}`); numbers and
    booleans stay."""
    strength = name_strength(key)
    if strength is None or not isinstance(item, str | dict | list | tuple) or not item:
        return redact_value(item)
    if isinstance(item, str) and ordinary(item, weak=strength is Strength.WEAK):
        return item
    return REDACTED


@pinned
def redact_string(value: str) -> str:
    """One string of unknown kind: a URL is redacted as a URL, anything else as text."""
    head = value[:16].lower()
    if "://" in head or head.startswith(("mailto:", "javascript:", "data:")):
        return redact_url(value)
    return redact_text(value)


@pinned
def says_secret(text: str) -> bool:
    """Whether `text` holds a secret the text rules would hide, or says in words that it
    holds one ("remember my wifi passphrase is hunter2hunter2", "set my pin to 4821")."""
    return redact_text(text) != text or _says_secret(text)


@pinned
def holds_secret(name: str, value: Any) -> bool:
    """Whether a setting called `name` (a dotted path's last part) holding `value` would keep
    a secret: a value `redact_value` would change, or a name, an object key or a text inside
    it that holds or says one (`says_secret`)."""
    if redact_value({name: value}) != {name: value}:
        return True
    pending: list[Any] = [name, value]
    while pending:  # the registry bounds a value's depth before anything walks it
        item = pending.pop()
        if isinstance(item, str):
            if says_secret(item):
                return True
        elif isinstance(item, dict):
            pending += [str(key) for key in item]
            pending += item.values()
        elif isinstance(item, list | tuple):
            pending += item
    return False
