"""The redacted history of model calls: what goes into `llm_runs` and the JSONL audit log.

Context bodies never go in: each document becomes its digest, length and a short preview.
Full packets are written only when `LAIKA_DEBUG_PACKETS=1` is set explicitly (to
`logs/packets/`), and even then through the secret scrubber.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from ..paths import ensure_private_dir, logs_dir
from ..redact import redact_text, redact_value

PREVIEW_CHARS = 120
AUDIT_FILE = "audit.jsonl"
DEBUG_ENV = "LAIKA_DEBUG_PACKETS"


def digest(text: str) -> dict[str, Any]:
    return {
        "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "chars": len(text),
        # redacted before it is cut, so no key is kept in part
        "preview": " ".join(redact_text(text[: PREVIEW_CHARS * 4]).split())[:PREVIEW_CHARS],
    }


def redacted_documents(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each context document as ids, kind, URL, title and a digest of its Markdown."""
    out = []
    for document in documents:
        content = document.get("content", {})
        body = content.get("markdown") or json.dumps(content.get("sources", []))
        out.append(
            {
                "doc_id": document.get("doc_id"),
                "kind": document.get("kind"),
                "url": content.get("url"),
                "title": content.get("title"),
                "body": digest(str(body)),
            }
        )
    return out


def redacted_request(
    *, provider: str, model: str, question: str, system: str, documents: list[dict[str, Any]]
) -> dict[str, Any]:
    record: dict[str, Any] = redact_value(
        {
            "provider": provider,
            "model": model,
            "question": question,
            "system": digest(system),
            "documents": redacted_documents(documents),
        }
    )
    return record


def audit(event: str, correlation_id: str, **fields: Any) -> None:
    """Append one JSON line to `logs/audit.jsonl` (llm.request, llm.response, llm.error)."""
    record = {"ts": round(time.time(), 3), "event": event, "correlation_id": correlation_id}
    record.update(redact_value(fields))
    path = ensure_private_dir(logs_dir()) / AUDIT_FILE
    with path.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


def debug_packet(correlation_id: str, name: str, packet: Any) -> Path | None:
    """The full packet, only when explicitly enabled; secrets still scrubbed."""
    if os.environ.get(DEBUG_ENV) != "1":
        return None
    path = ensure_private_dir(logs_dir() / "packets") / f"{correlation_id}.{name}.json"
    path.write_text(json.dumps(redact_value(packet), ensure_ascii=False, indent=2), "utf-8")
    return path
