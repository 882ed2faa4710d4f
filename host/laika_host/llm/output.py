"""Does the reply have the shape the request asked for? (JSON, and the JSON Schema.)"""

from __future__ import annotations

import json

from ..json_depth import MAX_JSON_DEPTH, too_deep
from .contract import ChatRequest

MAX_PROBLEM = 300


def check_output(text: str, request: ChatRequest) -> str | None:
    """None when fine; else what is wrong, in words (the text itself is kept by the caller)."""
    wanted = (request.response_format or {}).get("type")
    if wanted not in ("json_object", "json_schema"):
        return None
    if too_deep(text):  # checked first: every step below recurses once per level
        return f"the reply nests JSON deeper than {MAX_JSON_DEPTH} levels; not checked"
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        return f"the reply is not JSON ({error}); the provider ignored the requested format"
    schema = request.json_schema()
    if schema is None:
        return None
    from jsonschema import Draft202012Validator

    try:
        problems = sorted(Draft202012Validator(schema).iter_errors(value), key=str)
    except RecursionError:
        return "the reply nests too deeply to check against the schema"
    if not problems:
        return None
    first = problems[0]
    where = "/".join(str(part) for part in first.absolute_path) or "(root)"
    return f"the reply does not match the schema at {where}: {first.message}"[:MAX_PROBLEM]
