"""PDF sources: a file, a URL that serves a PDF, a capture job all give a real source (text
layer, headings by font size, `[Page N]` markers, metadata, bounds, redaction), citations of
it name their page, and hostile files end in bounded time and memory with a clear error.
PDFs are real files written by `pdf_files` and read by the real pipeline and worker."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laika_host.agent.verify import PackedSource, verify_citations
from laika_host.capture import CaptureError, CaptureOptions
from laika_host.capture.bounds import PAGE_MARKER
from laika_host.capture.document import capture_document
from laika_host.capture.pdf import capture_pdf
from pdf_files import (
    compression_bomb,
    deeply_nested,
    flowed,
    image_only_pdf,
    many_pages,
    pdf,
)
from secret_corpus import GITHUB_CLASSIC

from html_server import serve
from support import run_laika

INTRO = (
    "The river rose by ten centimetres overnight while the harbour gauge stayed dry. "
    "Fishermen moved their boats to the inner basin before dawn."
)
METHOD = (
    "Readings were taken every hour with a staff gauge fixed to the north pier, and each "
    "reading was checked against the tide table printed by the harbour office."
)
REPORT = pdf(
    flowed([(22, "Tide Report"), (11, INTRO), (15, "Method"), (11, METHOD)])
    + flowed([(15, "Results"), (11, "The highest water came at four in the morning.")]),
    title="Harbour tides 2024",
    author="Ada Lovelace",
)


def words(text: str) -> list[str]:
    return [w.strip(".,:;").lower() for w in text.split()]


@pytest.mark.slow  # > 3 s with the cores busy
def test_cli_captures_a_pdf_file_as_a_real_source(tmp_path: Path) -> None:
    """Before: a PDF became a note titled "None" holding raw PDF syntax."""
    path = tmp_path / "report.pdf"
    path.write_bytes(REPORT)
    done = run_laika("capture", str(path), "--dry-run", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["title"] == "Harbour tides 2024"
    assert result["byline"] == "Ada Lovelace"
    assert result["published"] == "2024-03-15"
    assert result["extractor"] == "pdf"
    assert words(INTRO) == words(result["text"])[2 : 2 + len(words(INTRO))]
    for syntax in ("endobj", "FlateDecode", "/Type", "%PDF", "[Page"):
        assert syntax not in result["text"]
    assert result["markdown"].startswith("[Page 1]\n\n# Tide Report\n\nThe river rose")
    assert "\n\n## Method\n\nReadings were taken" in result["markdown"]
    assert "[Page 2]\n\n## Results" in result["markdown"]

    stored = run_laika("capture", str(path), "--url", "https://tides.test/report.pdf", "--json")
    assert stored.returncode == 0, stored.stderr
    source = json.loads(stored.stdout)["source"]
    assert source["title"] == "Harbour tides 2024"
    assert source["url"] == "https://tides.test/report.pdf"


@pytest.mark.slow  # > 3 s with the cores busy
def test_a_pdf_without_a_text_layer_says_so_and_names_ocr(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(image_only_pdf(3))
    done = run_laika("capture", str(path))
    assert done.returncode == 2
    assert "no text layer" in done.stderr
    assert "OCR" in done.stderr
    assert "Traceback" not in done.stderr
    with pytest.raises(CaptureError) as raised:
        capture_document(image_only_pdf(1))
    assert raised.value.kind == "no_text"


def test_secrets_in_text_and_metadata_are_redacted() -> None:
    document = pdf(
        flowed([(11, f"Deploy with the token {GITHUB_CLASSIC} and nothing else. " * 3)]),
        title=f"Notes {GITHUB_CLASSIC}",
        author=GITHUB_CLASSIC,
    )
    capture = capture_document(document, "https://tides.test/a.pdf?token=hunter2")
    for field in (capture.markdown, capture.text, capture.title or "", capture.byline or ""):
        assert GITHUB_CLASSIC not in field
    assert "[redacted]" in capture.text
    assert "hunter2" not in (capture.url or "")


def test_bounds_and_chunks_follow_pages() -> None:
    long = pdf(
        flowed([(11, f"Paragraph {n} says " + "more about tides " * 12) for n in range(300)])
    )
    capture = capture_document(
        long, options=CaptureOptions(max_chars=5_000, chunk_size=1_000, max_chunks=6)
    )
    assert capture.truncated
    assert "truncated" in capture.signals
    assert len(capture.markdown) <= 5_000
    assert len(capture.chunks) == 6
    for piece in capture.chunks:
        assert PAGE_MARKER.match(piece.markdown.split("\n", 1)[0]), piece.markdown[:40]


@st.composite
def documents(draw: st.DrawFn) -> list[tuple[float, str]]:
    """A title, then sections: a heading at one of two sizes and body paragraphs of words.
    Paragraphs run at least two lines, as in any document with prose: with only one-line
    paragraphs, paragraph spacing and line spacing cannot be told apart (nor, when headings
    hold most characters, body text from headings)."""
    vocabulary = st.sampled_from(
        [
            "tide",
            "gauge",
            "harbour",
            "river",
            "pier",
            "basin",
            "dawn",
            "reading",
            "water",
            "level",
            "boat",
            "north",
        ]
    )
    paragraph = st.lists(vocabulary, min_size=20, max_size=60).map(" ".join)
    blocks: list[tuple[float, str]] = [
        (24, "Survey " + draw(paragraph.map(lambda p: p[:40].strip())))
    ]
    for _ in range(draw(st.integers(1, 5))):
        size = draw(st.sampled_from([14.0, 18.0]))
        blocks.append(
            (size, "Part " + " ".join(draw(st.lists(vocabulary, min_size=1, max_size=4))))
        )
        blocks += [
            (10.0, "We " + text) for text in draw(st.lists(paragraph, min_size=1, max_size=4))
        ]
    return blocks


@given(documents())
@settings(max_examples=40, deadline=None)
def test_any_laid_out_document_keeps_its_words_headings_and_pages(
    blocks: list[tuple[float, str]],
) -> None:
    pages = flowed(blocks)
    capture = capture_pdf(pdf(pages), options=CaptureOptions(max_chars=200_000))
    assert words(capture.text) == [w for _, text in blocks for w in words(text)]
    present = {size for size, _ in blocks if size > 10}
    ranks = {size: "#" * (i + 1) + " " for i, size in enumerate(sorted(present, reverse=True))}
    expected = [ranks[size] + text for size, text in blocks if size in ranks]
    found = [line for line in capture.markdown.split("\n") if line.startswith("#")]
    assert found == expected
    paragraphs = [text for size, text in blocks if size == 10.0]
    body = [b for b in capture.markdown.split("\n\n") if b.startswith("We ")]
    assert body == paragraphs
    markers = [int(m.group(1)) for m in PAGE_MARKER.finditer(capture.markdown)]
    assert markers == list(range(1, len(pages) + 1))


def test_a_quote_from_a_pdf_verifies_and_names_its_page() -> None:
    capture = capture_document(REPORT, "https://tides.test/report.pdf")
    source = PackedSource(
        "src:1", "1", capture.url or "", capture.text, capture.markdown, capture.title
    )
    checked = verify_citations(
        [
            {"doc_id": "src:1", "quote": "The highest water came at four in the morning."},
            {"doc_id": "src:1", "quote": "fixed to the north pier"},
        ],
        [source],
    ).citations
    assert [c.verified for c in checked] == [True, True]
    assert checked[0].locator == "https://tides.test/report.pdf#page=2"
    assert checked[0].heading == "Results"
    assert checked[1].locator == "https://tides.test/report.pdf#page=1"
    assert checked[1].heading == "Method"


def test_an_html_page_that_reads_page_n_gets_no_page_locator() -> None:
    html = (
        "<html><body><article><h1>Notes</h1><p>[Page 7]</p><p>"
        + "The tide turned early. " * 30
        + "</p></article></body></html>"
    )
    capture = capture_document(html.encode(), "https://tides.test/notes")
    assert "[Page 7]" in capture.text  # page text stays text
    source = PackedSource("src:1", "1", capture.url or "", capture.text, capture.markdown)
    cited = verify_citations([{"doc_id": "src:1", "quote": "The tide turned early."}], [source])
    assert "#:~:text=" in (cited.citations[0].locator or "")


@pytest.mark.slow  # > 3 s with the cores busy
def test_a_url_serving_a_pdf_is_captured_by_type_or_by_its_header(tmp_path: Path) -> None:
    served = {
        "/typed.pdf": (REPORT, "application/pdf"),
        "/download": (REPORT, "application/octet-stream"),
        "/image.png": (b"\x89PNG\r\n\x1a\n" + b"\x00" * 2000, "image/png"),
    }
    local = "--allow-private-address"  # the server is on this machine
    with serve(served.get) as base:
        for path in ("/typed.pdf", "/download"):
            done = run_laika("capture", base + path, "--dry-run", "--json", local)
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout)["title"] == "Harbour tides 2024"
        refused = run_laika("capture", base + "/image.png", local)
        assert refused.returncode == 2
        assert "neither an HTML page nor a PDF" in refused.stderr


@pytest.mark.slow  # > 3 s with the cores busy
def test_sources_add_url_and_a_job_capture_a_pdf_through_the_host(tmp_path: Path) -> None:
    """The extension on a tab showing a PDF sends its URL; the host fetches and captures it
    (from this machine: the user set `capture.allow_private_addresses`)."""
    from native_client import Client, HostProcess
    from public_loopback import allow_private_addresses

    allow_private_addresses(tmp_path)
    with serve({"/r.pdf": (REPORT, "application/pdf")}.get) as base:
        host = HostProcess(tmp_path)
        client = Client(host)
        try:
            added = client.call("sources.add_url", {"url": f"{base}/r.pdf", "collection": "Tides"})
            assert added["ok"], added
            ran = client.call("jobs.run", {})
            assert ran["result"]["succeeded"] == [added["result"]["job"]["id"]]
            got = client.call("sources.get", {"source_id": added["result"]["source"]["id"]})
        finally:
            host.kill()
    source = got["result"]
    assert source["title"] == "Harbour tides 2024"
    assert source["provenance"]["extractor"] == "pdf"
    assert "[Page 2]" in source["markdown"]


HOSTILE = {
    "bomb": (compression_bomb, "bad_pdf"),
    "deep": (deeply_nested, None),
    "pages": (lambda: many_pages(20_000), None),
}


@pytest.mark.slow  # > 3 s with the cores busy
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_pdfs_end_in_bounded_time_and_memory(tmp_path: Path, name: str) -> None:
    """In the real capture worker: a 1 GiB compression bomb (1 MB file), 100,000-deep
    nesting, 20,000 pages. Each ends within seconds, its worker's peak memory stays far
    below what the bomb would inflate to, and the result is a capture or a clear error."""
    make, error_kind = HOSTILE[name]
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(make())
    script = textwrap.dedent(
        f"""
        import json, resource, sys
        from laika_host.capture import CaptureError
        from laika_host.capture.isolated import CaptureRunner
        runner = CaptureRunner(deadline=60)
        try:
            capture = runner.capture_blocking(open({str(path)!r}, "rb").read())
            out = {{"ok": True, "signals": capture.signals, "text": capture.text[:2000]}}
        except CaptureError as error:
            out = {{"ok": False, "kind": error.kind, "message": str(error)}}
        runner.close()
        out["worker_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(json.dumps(out))
        """
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert elapsed < 30, elapsed
    assert out["worker_peak_mb"] < 600, out
    if error_kind:
        assert not out["ok"], out
        assert out["kind"] == error_kind, out
        assert "safety bound" in out["message"]
    elif out["ok"]:
        assert out["text"], out
    else:
        assert out["kind"] == "bad_pdf", out
        assert "cannot be read" in out["message"]
    if name == "pages":
        assert out["ok"]
        assert "truncated" in out["signals"]
        assert "Page 1 of the long report." in out["text"]


def test_a_verified_pdf_citation_links_to_its_page_in_the_rendered_answer() -> None:
    from laika_host.render.answer_html import answer_to_html

    capture = capture_document(REPORT, "https://tides.test/report.pdf")
    source = PackedSource("src:1", "1", capture.url or "", capture.text, capture.markdown)
    quote = "The highest water came at four in the morning."
    cited = verify_citations([{"doc_id": "src:1", "quote": quote}], [source]).citations[0]
    html = answer_to_html("High water came at four [1].", [cited.to_json()])
    assert '<a class="citation" href="https://tides.test/report.pdf#page=2"' in html
