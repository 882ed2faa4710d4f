"""`laika capture` as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import run_laika

PAGE = (
    "<html><head><title>Field notes</title><meta name='author' content='Ada'></head><body>"
    "<nav><a href='/'>Home</a></nav><article><h1>Field notes</h1>"
    + "".join(
        f"<p>Observation {i}: the river rose by {i} centimetres overnight, see "
        f"<a href='/data/{i}?token=SECRET'>the data</a>.</p>"
        for i in range(8)
    )
    + "</article></body></html>"
)


@pytest.mark.slow  # > 3 s with the cores busy
def test_capture_a_file_as_markdown(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    done = run_laika("capture", str(page), "--url", "https://example.org/notes", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Field notes\n\nObservation 0")
    assert "[the data](https://example.org/data/0)" in done.stdout
    assert "SECRET" not in done.stdout
    assert "Home" not in done.stdout


@pytest.mark.slow  # > 3 s with the cores busy
def test_capture_json_from_stdin() -> None:
    done = run_laika(
        "capture",
        "-",
        "--json",
        "--dry-run",
        "--url",
        "https://example.org/notes",
        stdin=PAGE.encode(),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["title"] == "Field notes"
    assert result["byline"] == "Ada"
    assert result["normalized_url"] == "https://example.org/notes"
    assert result["truncated"] is False
    assert result["chunks"][0]["index"] == 1
    assert result["extracted_links"][0] == {
        "url": "https://example.org/data/0",
        "text": "the data",
        "context": "Observation 0: the river rose by 0 centimetres overnight, see the data.",
    }
    assert len(result["content_hash"]) == 64


@pytest.mark.slow  # > 3 s with the cores busy
def test_capture_bad_input_exits_2_with_the_reason(tmp_path: Path) -> None:
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    done = run_laika("capture", str(binary))
    assert done.returncode == 2
    assert "binary file" in done.stderr
    assert "Traceback" not in done.stderr
    missing = run_laika("capture", str(tmp_path / "nope.html"))
    assert missing.returncode == 1
    assert "no such file" in missing.stderr
