"""Stored text is redacted once, as it is written, and stamped with the redaction it had; an
ask redacts again only what was stored under another redaction (issue #26, item 7)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from laika_host.agent import pack as pack_module
from laika_host.agent import passage_pack
from laika_host.capture import capture_html
from laika_host.config import registry
from laika_host.redact import _stamp, redaction_stamp
from laika_host.store import open_store

from support import packed_texts

REDACT = Path(__file__).resolve().parents[1] / "host" / "laika_host" / "redact"
RULES_DIGESTS = {1: "f187c41c60aacbd6"}
"""The rule files' digest at each RULES_VERSION."""
KEY = "sk-proj-" + "Q7w" * 16
PAGE = (
    "<html><head><title>Tide log</title></head><body><article><h1>Tide log</h1>"
    "<p>The gauge at the eastern quay logged the spring tide at dawn, the highest mark of "
    "the month, while the ferries waited at the pier for the water to fall.</p>"
    "<p>Ferries crossed the harbour once the ebb began in the late morning.</p>"
    "</article></body></html>"
)


def _rules_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in REDACT.glob("*.py") if p.name != "_stamp.py"):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def test_a_change_to_the_rules_comes_with_a_new_rules_version() -> None:
    found = _rules_digest()
    assert RULES_DIGESTS.get(_stamp.RULES_VERSION) == found, (
        "the redaction rules changed: bump RULES_VERSION in host/laika_host/redact/_stamp.py "
        "(rows stamped before are then redacted again on their way to a model) and record "
        f"{_stamp.RULES_VERSION + 1}: {found!r} in RULES_DIGESTS"
    )


def test_the_stamp_follows_the_extra_names() -> None:
    registry.mutate({"redaction.extra_secret_names": []}, who="cli", tool="test")
    before = redaction_stamp()
    registry.mutate({"redaction.extra_secret_names": ["harbour_ref"]}, who="cli", tool="test")
    try:
        assert redaction_stamp() != before
        assert redaction_stamp().startswith(f"r{_stamp.RULES_VERSION}:")
    finally:
        registry.mutate({"redaction.extra_secret_names": []}, who="cli", tool="test")
    assert redaction_stamp() == before


@pytest.fixture
def redactions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the pack step redacts, by the function that did it."""
    seen: list[str] = []

    def counting(name: str, real: Callable[[str], str]) -> Callable[[str], str]:
        def redact(text: str) -> str:
            seen.append(name)
            return real(text)

        return redact

    for module in (pack_module, passage_pack):
        for name in ("redact_text", "redact_url"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, counting(name, getattr(module, name)))
    return seen


def _packs(db: Path, *, unstamp: bool = False) -> list[str]:
    async def work() -> list[str]:
        async with open_store(db) as store:
            saved = await store.sources.save_capture(
                "Harbour", capture_html(PAGE.encode(), "https://tides.test/log")
            )
            assert saved.source.id
            if unstamp:  # as an older Laika left it: no stamp, and a key in its title
                async with store.db.transaction() as connection:
                    await connection.execute(
                        "UPDATE sources SET redacted_with = NULL, title = ? WHERE id = ?",
                        (f"Tide log {KEY}", saved.source.id),
                    )
            return await packed_texts(store, "Harbour", "spring tide gauge")

    return asyncio.run(work())


def test_an_ask_over_freshly_stored_sources_redacts_nothing_again(
    tmp_path: Path, redactions: list[str]
) -> None:
    texts = _packs(tmp_path / "laika.db")
    assert all("spring tide" in text for text in texts)
    assert redactions == []


def test_a_row_without_the_current_stamp_is_redacted_on_its_way_out(
    tmp_path: Path, redactions: list[str]
) -> None:
    texts = _packs(tmp_path / "laika.db", unstamp=True)
    assert all("spring tide" in text for text in texts)
    assert all(KEY not in text for text in texts)
    assert "redact_text" in redactions
