"""Does the reply have the shape the request asked for? (JSON, and the JSON Schema.)

The schema check stops at the validator's first complaint and never formats one whole
(`str()` of a jsonschema error pretty-prints the instance and the schema: sorting all
120,000 of them by it, for a reply of 60,000 empty citations, held the host for 27 CPU-s).
Validating a valid reply is still plain Python over all of it (0.8 CPU-s for 930 KB of
citations), so the client runs this check in a worker thread.
"""

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
        first = next(Draft202012Validator(schema).iter_errors(value), None)  # lazy: stops here
    except RecursionError:
        return "the reply nests too deeply to check against the schema"
    if first is None:
        return None
    where = "/".join(str(part) for part in first.absolute_path) or "(root)"
    return f"the reply does not match the schema at {where}: {first.message}"[:MAX_PROBLEM]
