"""Secret-looking text, found and replaced wherever text is stored, logged or sent.

API keys (OpenAI/Anthropic/OpenRouter `sk-...`, Google `AIza...`, GitHub tokens), bearer
tokens, `Cookie:`/`Authorization:` header lines and `session=`/`token=`-style assignments.
Captured pages go through it before they are stored, so a key or cookie a page happens to
show never reaches the database or a model.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"
_COOKIE = re.compile(r"(?i)\b((?:set-)?cookie\s*:\s*)[\w.%-]+=[^\s;]+(?:;\s*[\w.%-]+=[^\s;]*)*")
_AUTHORIZATION = re.compile(
    r"(?i)\b((?:proxy-)?authorization\s*:\s*)(?:bearer|basic|token|digest)\s+\S+"
    r"|\b(x-api-key\s*:\s*)\S+"
)
_ASSIGNMENT = re.compile(r"\b([A-Za-z_]{3,16})=([^\s&;\"'<>]{6,})")
SECRET_NAMES = frozenset(
    {"session", "sessionid", "session_id", "sid", "token", "access_token", "refresh_token"}
    | {"apikey", "api_key", "password", "passwd", "secret", "client_secret"}
)
_VALUE_HINTS = ("bearer", "sk-", "aiza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_")
_VALUES = re.compile(
    r"(?i:bearer\s+)[A-Za-z0-9._~+/=-]{8,}"
    r"|\bsk-(?:ant-|or-|proj-)?[A-Za-z0-9_-]{16,}"
    r"|\bAIza[0-9A-Za-z_-]{30,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"
)


def scrub_text(text: str) -> str:
    """`text` with every secret-looking value replaced by `[redacted]`."""
    if not text:
        return text
    low = text.lower()  # cheap substring tests first: most text holds no secret at all
    if "cookie" in low:
        text = _COOKIE.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    if "authorization" in low or "x-api-key" in low:
        text = _AUTHORIZATION.sub(lambda m: f"{m.group(1) or m.group(2)}{REDACTED}", text)
    if "=" in text:
        text = _ASSIGNMENT.sub(_assignment, text)
    if any(hint in low for hint in _VALUE_HINTS):
        text = _VALUES.sub(REDACTED, text)
    return text


def _assignment(match: re.Match[str]) -> str:
    name = match.group(1)
    return f"{name}={REDACTED}" if name.lower() in SECRET_NAMES else match.group(0)
