"""The demo as one operation: capture the shipped pages into `Demo`, ask the questions, write
the answers as a standalone page. The CLI prints what it returns; nothing else is touched."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent.flows import Answer, ask
from ..capture import capture_html
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
    store: Store, *, provider: ProviderConfig | None, progress: Progress
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
        result.answers.append((question, await ask(store, question, COLLECTION, provider=provider)))
    result.page = _write_page(result.answers)
    return result


def _write_page(answers: list[tuple[str, Answer]]) -> Path:
    folder = ensure_private_dir(data_dir() / "demo")
    path = folder / "answers.html"
    path.write_text(answers_page([(q, a.answer_markdown, a.citations) for q, a in answers]))
    tighten_file(path)
    return path
