"""The demo as one operation: capture the shipped pages into `Demo`, ask the questions, write
the answers as a standalone page. The CLI prints what it returns; nothing else is touched."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent.flows import Answer, ask
from ..capture import capture_html
from ..defaults import DEFAULT_MAX_TOKENS
from ..llm.config import ProviderConfig
from ..paths import data_dir, ensure_private_dir, tighten_file
from ..store import Store
from .answer_page import answers_page
from .pages import COLLECTION, PAGES, QUESTIONS

Progress = Callable[[str], None]


@dataclass
class DemoResult:
    collection: str
    saved: list[dict[str, Any]] = field(default_factory=list)
    answers: list[tuple[str, Answer]] = field(default_factory=list)
    page: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "sources": self.saved,
            "answers": [{"question": q, **answer.to_json()} for q, answer in self.answers],
            "html": str(self.page) if self.page else None,
        }


async def run_demo(
    store: Store,
    *,
    provider: ProviderConfig | None,
    progress: Progress,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> DemoResult:
    result = DemoResult(COLLECTION)
    for number, page in enumerate(PAGES, start=1):
        capture = capture_html(page.html.encode(), page.url)
        saved = await store.sources.save_capture(COLLECTION, capture)
        progress(f"[{number}/{len(PAGES)}] {saved.outcome}: {saved.source.title}")
        result.saved.append(
            {"id": saved.source.id, "title": saved.source.title, "outcome": saved.outcome}
        )
    for question in QUESTIONS:
        progress(f"asking: {question}")
        answer = await ask(store, question, COLLECTION, provider=provider, max_tokens=max_tokens)
        result.answers.append((question, answer))
    stored = await _stored_copies(store, result.answers)
    result.page = _write_page(result.answers, stored)
    return result


async def _stored_copies(store: Store, answers: list[tuple[str, Answer]]) -> dict[str, str]:
    """The stored Markdown of each source a verified citation names: the page shows the quote
    in it, since the demo pages' own addresses never open (`pages.DEMO_HOST`)."""
    cited = {
        c["source_id"] for _q, a in answers for c in a.citations if c["verified"] and c["source_id"]
    }
    return {sid: (await store.sources.get(sid)).markdown or "" for sid in sorted(cited)}


def _write_page(answers: list[tuple[str, Answer]], stored: dict[str, str]) -> Path:
    folder = ensure_private_dir(data_dir() / "demo")
    path = folder / "answers.html"
    entries = [(q, a.answer_markdown, a.citations) for q, a in answers]
    path.write_text(answers_page(entries, stored))
    tighten_file(path)
    return path
