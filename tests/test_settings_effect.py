"""Stored settings take effect where they are read: the user's extra secret names in the one
redaction module (text, JSON values and URLs alike, at once, in every process)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.capture import capture_html
from laika_host.config import registry
from laika_host.redact import REDACTED, redact_text, redact_url, redact_value

from support import packed_texts, run_laika

SECRET = "Zq8xK2vN5mLp"
NAMES = st.from_regex(r"[a-z]{3,8}_(ref|handle|marker|slot)", fullmatch=True)


def _extra(names: list[str]) -> None:
    registry.mutate({"redaction.extra_secret_names": names}, who="cli", tool="test")


@settings(max_examples=40)
@given(name=NAMES)
def test_an_extra_name_hides_its_value_everywhere_while_listed(name: str) -> None:
    text = f"{name}={SECRET}\n{name.upper()}: {SECRET}"
    url = f"https://example.org/p?{name}={SECRET}&page=2"
    _extra([])
    assert SECRET in redact_text(text)  # an ordinary name: the built-in rules keep it
    assert redact_value({name: SECRET}) == {name: SECRET}
    _extra([name])
    assert SECRET not in redact_text(text)
    assert REDACTED in redact_text(text)
    assert redact_value({name: SECRET}) == {name: REDACTED}
    assert SECRET not in redact_url(url)
    assert "page=2" in redact_url(url)
    _extra([])
    assert SECRET in redact_text(text)  # removed: shown again


def test_a_name_added_in_words_is_redacted_in_a_later_capture(tmp_path: Path) -> None:
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    page = tmp_path / "page.html"
    page.write_text(
        "<html><head><title>Debug notes</title></head><body><article><h1>Debug notes</h1>"
        f"<p>The failing request carried tracker_ref={SECRET} in its body, twice, which is "
        "why the server refused it after the upgrade of the gateway last week.</p>"
        "<p>Nothing else in the request looked unusual to the people who read it.</p>"
        "</article></body></html>",
        encoding="utf-8",
    )
    added = run_laika(
        "settings", "treat tracker_ref as a secret", "--provider", "offline", "--yes", env=env
    )
    assert added.returncode == 0, added.stderr
    captured = run_laika("capture", str(page), "--url", "https://example.org/d", "--json", env=env)
    assert captured.returncode == 0, captured.stderr
    assert SECRET not in captured.stdout
    stored = run_laika("sources", "list", "--json", env=env)
    source_id = json.loads(stored.stdout)["sources"][0]["id"]
    shown = run_laika("sources", "show", source_id, "--json", env=env)
    assert "tracker_ref=" in shown.stdout
    assert SECRET not in shown.stdout


def test_a_capture_reads_the_extra_names_once_for_all_it_redacts(monkeypatch) -> None:
    """A capture redacts every link, its text and context, the title and the body: with one
    reading of the settings (a read costs a `stat` and path joins: it was 60% of resolving a
    link-dense page's URLs), and every link still loses the value of a listed name."""
    _extra(["tracker_ref"])
    reads: list[object] = []
    peek = registry.peek
    monkeypatch.setattr(registry, "peek", lambda *a, **k: reads.append(a) or peek(*a, **k))
    links = "".join(
        f"<p>Report {n} sent tracker_ref={SECRET} to "
        f"<a href='/r/{n}?tracker_ref={SECRET}&page={n}'>the gateway {n}</a>, which logged "
        "the request and the answer for the people on call that night.</p>"
        for n in range(40)
    )
    html = f"<html><head><title>Gateway log</title></head><body><article>{links}</article></body></html>"
    captured = capture_html(html, "https://example.org/log")
    assert len(captured.extracted_links) == 40
    assert SECRET not in json.dumps(captured.to_json())
    assert len(reads) == 1, f"{len(reads)} reads of the settings in one capture"
    _extra([])


PAGE = (
    "<html><head><title>Long read</title></head><body><article><h1>Long read</h1>"
    + "".join(
        f"<p>Paragraph {n} tells how the harbour changed over the years, who worked on the "
        "quays, what the boats carried and why the tides mattered to every one of them.</p>"
        for n in range(120)
    )
    + "</article></body></html>"
)


def test_the_capture_defaults_follow_the_settings(tmp_path: Path) -> None:
    """`capture.max_chars` bounds a capture that names no bound, and captures go to
    `capture.default_collection` when none is named; a named one still wins."""
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    page = tmp_path / "long.html"
    page.write_text(PAGE, encoding="utf-8")

    def capture(*args: str) -> dict[str, object]:
        done = run_laika("capture", str(page), "--url", "https://example.org/long", *args, env=env)
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    default = capture("--dry-run", "--json")
    assert default["truncated"] is False
    for words in ("limit captures to 5,000 characters", "save captures to Harbour by default"):
        changed = run_laika("settings", words, "--provider", "offline", "--yes", env=env)
        assert changed.returncode == 0, changed.stdout + changed.stderr
    bounded = capture("--dry-run", "--json")
    assert bounded["truncated"] is True
    assert len(str(bounded["markdown"])) <= 5_000
    assert len(str(capture("--dry-run", "--json", "--max-chars", "8000")["markdown"])) > 5_000
    stored = capture("--json")
    assert stored["collection"] == "Harbour"
    assert capture("--json", "--collection", "Inbox")["collection"] == "Inbox"


@settings(max_examples=20)
@given(name=NAMES, filler=st.text(alphabet="abcdefgh .\n", min_size=1100, max_size=3000))
def test_a_text_read_clean_is_read_again_once_a_name_is_added(name: str, filler: str) -> None:
    """Long clean texts and URL parts are remembered (`_text._KnownClean`, `_Remembered`): a
    name added later must still apply to them, in this process and at once."""
    text = f"{filler}\n{name}={SECRET}\n"
    url = f"https://example.org/p?q={name}%3D{SECRET}"
    _extra([])
    assert redact_text(text) == text  # remembered as clean
    assert SECRET in redact_url(url)
    _extra([name])
    assert SECRET not in redact_text(text)
    assert SECRET not in redact_url(url)
    _extra([])
    assert redact_text(text) == text


def test_a_secret_stored_before_its_name_was_added_never_reaches_a_pack(tmp_path: Path) -> None:
    """Stored text is redacted as it is written; a name added later is applied on the way to a
    model, in the title, the URL and the body, at every window's packing."""
    import asyncio

    from laika_host.store import open_store

    name = "harbour_ref"
    html = (
        f"<html><head><title>Tide log {name}={SECRET}</title></head><body><article>"
        f"<h1>Tide log</h1><p>The gauge at the eastern quay logged {name}={SECRET} at dawn, "
        "when the spring tide reached its highest mark of the month.</p>"
        "<p>Ferries waited for the water to fall before they crossed the harbour.</p>"
        "</article></body></html>"
    )
    _extra([])
    capture = capture_html(html.encode(), f"https://example.org/log?{name}={SECRET}")

    async def packs() -> list[str]:
        async with open_store(tmp_path / "laika.db") as store:
            saved = await store.sources.save_capture("Harbour", capture)
            assert SECRET in saved.source.title  # an ordinary name when it was stored
            _extra([name])
            return await packed_texts(store, "Harbour", "spring tide gauge")

    try:
        for text in asyncio.run(packs()):
            assert "spring tide" in text
            assert SECRET not in text
    finally:
        _extra([])
