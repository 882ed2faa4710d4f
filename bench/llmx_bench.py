"""Compact LLMX context against the JSON pack: tokens, source text per budget, valid replies.

    LAIKA_LLAMA_CACHE=/path/to/cache .venv/bin/python bench/llmx_bench.py [--corpus DIR]
        [--pages 20] [--max-tokens 512] [--json FILE]

The first N pages of capture-dev (by name, with a web address and >= 2,000 characters of
text) go through the real capture pipeline into a fresh store, one collection each (and all
of them into one more). One question per page, from its title. In the same run, against one
llama-server with SmolLM2 (`llm.local_model.LocalServer`, its 2,048-token context):

- same documents: the page packed whole, the prompt (system + user) in each format, counted
  by llama-server's own tokenizer (`POST /tokenize`), and the user message (documents) alone;
- same budget: the budget grounded chat gives this provider (`flows.budget_for`), and how
  many characters of source text each format's pack holds in it;
- many sources: all N pages in one collection, packed at a few budgets in each format: the
  source characters each holds, and the real tokens of its documents;
- real answers: `flows.ask` in each format (the whole turn: pack, fit, prompt, model, parse,
  verify); a reply counts as valid and cited when it parses (status ok or partial) and at
  least one of its citations verifies against the stored text.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from laika_host.agent.pack import Pack
    from laika_host.llm.config import ContextFormat, ProviderConfig
    from laika_host.store import Store

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "capture-dev"
MIN_TEXT = 2_000
FORMATS: tuple[ContextFormat, ...] = ("json", "llmx")
WHOLE = 1_000_000  # a budget that holds any page whole
ALL = "All pages"
BUDGETS = (1_500, 4_000, 12_000)


@dataclass(frozen=True)
class Page:
    name: str
    url: str
    html: bytes


def pages(corpus: Path) -> list[Page]:
    """Every page of the corpus with a web address, by name (the capture decides the text)."""
    expectations = json.loads((corpus / "expectations.json").read_text(encoding="utf-8"))
    found = []
    for name, entry in sorted(expectations.items()):
        path = corpus / "html" / name
        if path.is_file() and str(entry.get("source_key", "")).startswith("http"):
            found.append(Page(name, entry["source_key"], path.read_bytes()))
    return found


def question_for(title: str) -> str:
    """One question per page, from its title (deterministic)."""
    return f"What does the page “{title.strip()[:120]}” say? Answer in two sentences."


@dataclass
class Row:
    """One page, measured both ways."""

    name: str
    question: str
    tokens: dict[str, int] = field(default_factory=dict)  # the same documents, whole prompt
    doc_tokens: dict[str, int] = field(default_factory=dict)  # the user message alone
    doc_chars: dict[str, int] = field(default_factory=dict)  # its characters
    fit_chars: dict[str, int] = field(default_factory=dict)  # source text in the budget
    valid_cited: dict[str, bool] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)


def provider(base_url: str, fmt: ContextFormat) -> ProviderConfig:
    from laika_host.llm.config import ProviderConfig
    from laika_host.llm.local_model import CONTEXT_TOKENS, MODEL_NAME

    return ProviderConfig(
        id=f"smollm2-{fmt}",
        kind="openai_compatible",
        model=MODEL_NAME,
        base_url=f"{base_url}/v1",
        context_window=CONTEXT_TOKENS,
        context_format=fmt,
    )


async def pack_of(
    store: Store, collection: str, question: str, budget: int, fmt: ContextFormat
) -> Pack:
    """The collection packed as grounded chat packs it (relevance aside)."""
    from laika_host.agent.pack import SourceText, pack_collection

    target = await store.collections.get(collection)
    bodies = [SourceText(**body) for body in await store.sources.bodies(target.id)]
    return pack_collection(
        target.id, target.title, bodies, budget_tokens=budget, context_format=fmt
    )


def prompt_text(pack: Pack, question: str, fmt: ContextFormat) -> tuple[str, str]:
    """(system + user prompt, the user prompt) as sent in `fmt`."""
    from laika_host.agent.prompts import prompt_for, user_prompt

    user = user_prompt(question, pack.documents, pack.note(), fmt)
    return prompt_for("web.answer", markdown_mode=False, context_format=fmt) + user, user


def source_chars(pack: Pack) -> int:
    """Characters of source text in the pack (full pages and summaries, not the index)."""
    return sum(
        len(str(document["content"].get("markdown", "")))
        for document in pack.documents
        if document["kind"] == "collection.source.v1"
    )


async def tokens(chosen: ProviderConfig, text: str) -> int:
    from laika_host.agent.flows import count_tokens

    counted = await count_tokens(chosen, text)
    if counted is None:
        raise SystemExit(f"llama-server at {chosen.url} did not tokenize the prompt")
    return counted


async def measure(store: Store, base_url: str, collection: str, row: Row, max_tokens: int) -> None:
    from laika_host.agent import flows

    for fmt in FORMATS:
        chosen = provider(base_url, fmt)
        whole = await pack_of(store, collection, row.question, WHOLE, fmt)
        prompt, user = prompt_text(whole, row.question, fmt)
        row.tokens[fmt] = await tokens(chosen, prompt)
        row.doc_tokens[fmt] = await tokens(chosen, user)
        row.doc_chars[fmt] = len(user)
        budget = flows.budget_for(chosen, max_tokens, ())
        fitted = await pack_of(store, collection, row.question, budget, fmt)
        row.fit_chars[fmt] = source_chars(fitted)
        answer = await flows.ask(
            store, row.question, collection, provider=chosen, max_tokens=max_tokens
        )
        cited = any(citation.get("verified") for citation in answer.citations)
        row.status[fmt] = answer.status
        row.valid_cited[fmt] = answer.status in ("ok", "partial") and cited


async def many_sources(store: Store, base_url: str) -> list[dict[str, Any]]:
    """All the pages in one collection: source text and real tokens per budget and format."""
    question = "What do these pages say?"
    found = []
    for budget in BUDGETS:
        row: dict[str, Any] = {"budget": budget}
        for fmt in FORMATS:
            pack = await pack_of(store, ALL, question, budget, fmt)
            tiers = list(pack.tiers.values())
            row[fmt] = {
                "chars": source_chars(pack),
                "tokens": await tokens(
                    provider(base_url, fmt), prompt_text(pack, question, fmt)[1]
                ),
                "full": tiers.count("full"),
                "summaries": tiers.count("summary"),
            }
        found.append(row)
    return found


async def run(
    db: Path, corpus: Path, count: int, base_url: str, max_tokens: int
) -> tuple[list[Row], list[dict[str, Any]]]:
    from laika_host.capture import capture_html
    from laika_host.store import open_store

    rows: list[Row] = []
    async with open_store(db) as store:
        await store.collections.create(ALL)
        for page in pages(corpus):
            if len(rows) == count:
                break
            capture = capture_html(page.html, page.url)
            if len(capture.text) < MIN_TEXT:
                continue
            collection = f"Page {len(rows) + 1:02d}"
            await store.collections.create(collection)
            await store.sources.save_capture(collection, capture)
            await store.sources.save_capture(ALL, capture)
            row = Row(page.name, question_for(capture.title or page.name))
            await measure(store, base_url, collection, row, max_tokens)
            print_row(row)
            rows.append(row)
        return rows, await many_sources(store, base_url)


def print_row(row: Row) -> None:
    ratio = row.tokens["llmx"] / row.tokens["json"]
    marks = " ".join(
        f"{fmt}:{row.status[fmt]}{'+' if row.valid_cited[fmt] else '-'}" for fmt in FORMATS
    )
    print(
        f"{row.name[:34]:<34} {row.tokens['json']:>6} {row.tokens['llmx']:>6} {ratio:>6.3f} "
        f"{row.fit_chars['json']:>7} {row.fit_chars['llmx']:>7}  {marks}",
        flush=True,
    )


def totals(rows: list[Row]) -> dict[str, dict[str, int]]:
    def total(name: str, fmt: str) -> int:
        return int(sum(getattr(row, name)[fmt] for row in rows))

    return {
        "prompt_tokens": {fmt: total("tokens", fmt) for fmt in FORMATS},
        "document_tokens": {fmt: total("doc_tokens", fmt) for fmt in FORMATS},
        "document_chars": {fmt: total("doc_chars", fmt) for fmt in FORMATS},
        "source_chars_in_budget": {fmt: total("fit_chars", fmt) for fmt in FORMATS},
        "valid_cited": {fmt: total("valid_cited", fmt) for fmt in FORMATS},
    }


def print_totals(summary: dict[str, dict[str, int]], pages_run: int) -> None:
    print()
    for label, name in (
        ("prompt tokens, same documents", "prompt_tokens"),
        ("user message (documents) alone", "document_tokens"),
        ("its characters", "document_chars"),
        ("source chars in the budget", "source_chars_in_budget"),
    ):
        json_count, llmx_count = summary[name]["json"], summary[name]["llmx"]
        ratio = llmx_count / max(json_count, 1)
        print(f"{label + ':':<32}json {json_count}, llmx {llmx_count} (ratio {ratio:.3f})")
    per_token = {
        fmt: summary["document_chars"][fmt] / max(summary["document_tokens"][fmt], 1)
        for fmt in FORMATS
    }
    print(f"{'characters per real token:':<32}json {per_token['json']:.3f}, ", end="")
    print(f"llmx {per_token['llmx']:.3f} (the packer's estimate assumes the same for both)")
    valid = summary["valid_cited"]
    print(f"{'valid cited replies:':<32}json {valid['json']}/{pages_run}, ", end="")
    print(f"llmx {valid['llmx']}/{pages_run}")


def print_many(found: list[dict[str, Any]]) -> None:
    print("\nall pages in one collection, packed at a budget (estimated tokens):")
    for row in found:
        parts = [
            f"{fmt} {row[fmt]['chars']} chars ({row[fmt]['full']} full, "
            f"{row[fmt]['summaries']} summaries; {row[fmt]['tokens']} real tokens)"
            for fmt in FORMATS
        ]
        ratio = row["llmx"]["chars"] / max(row["json"]["chars"], 1)
        print(f"  budget {row['budget']:>6}: " + "; ".join(parts) + f"; chars x{ratio:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--json", type=Path, help="Also write the rows and totals here.")
    args = parser.parse_args()
    if not (args.corpus / "expectations.json").is_file():
        sys.exit(f"no capture-dev corpus at {args.corpus}; pass --corpus DIR")
    from laika_host.llm.local_model import LocalServer

    print(
        f"{'page':<34} {'tokens':>6} {'llmx':>6} {'ratio':>6} {'chars':>7} {'llmx':>7}  "
        "status (+ valid and cited)"
    )
    with tempfile.TemporaryDirectory() as folder, LocalServer() as server:
        os.environ["LAIKA_HOME"] = folder  # the turns' chat, runs and audit stay in there
        rows, many = asyncio.run(
            run(
                Path(folder) / "laika.db", args.corpus, args.pages, server.base_url, args.max_tokens
            )
        )
    summary = totals(rows)
    print_totals(summary, len(rows))
    print_many(many)
    if args.json:
        data = {"rows": [row.__dict__ for row in rows], "totals": summary, "many": many}
        args.json.write_text(json.dumps(data, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
