"""`laika demo`: the shipped pages are captured into `Demo`, both questions get verified
citations, the answers page is written, and no other collection is touched."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from lxml import html as lxml_html

from laika_host.agent.verify import normalize

from support import run_laika


@pytest.mark.slow  # > 3 s with the cores busy
def test_the_demo_answers_with_verified_citations_and_touches_nothing_else(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    mine = run_laika("sources", "note", "-", stdin=b"My own note about the harbour.\n", env=env)
    assert mine.returncode == 0, mine.stderr
    before = run_laika("sources", "list", "-c", "Inbox", "--json", env=env).stdout

    started = time.monotonic()
    first = run_laika("demo", "--json", env=env)
    assert first.returncode == 0, first.stderr
    assert time.monotonic() - started < 30  # the bound for a fresh machine; ~1 s here
    result = json.loads(first.stdout)
    assert result["collection"] == "Demo"
    assert [s["outcome"] for s in result["sources"]] == ["new", "new", "new"]
    assert len(result["answers"]) == 2
    for answer in result["answers"]:
        assert answer["status"] == "ok", answer
        verified = [c for c in answer["citations"] if c["verified"]]
        assert verified, answer
        assert all("#:~:text=" in c["locator"] for c in verified)

    page = Path(result["html"])
    assert page.parent == tmp_path / "demo"
    assert oct(page.stat().st_mode & 0o777) == "0o600"
    tree = lxml_html.fromstring(page.read_text())
    assert not tree.xpath("//script | //iframe | //object | //img | //*[@style]")
    assert "default-src 'none'" in tree.xpath("//meta[@http-equiv]/@content")[0]
    links = tree.xpath("//a[@class='citation']/@href")
    assert links
    assert all("#:~:text=" in href for href in links)
    # the demo pages' addresses never resolve: the page says so and shows each quote in the
    # stored copy, marked
    assert "demo.laika.invalid" in tree.xpath("string(//p[@class='about'])")
    listed = tree.xpath("//li[span[@class='verified']]")
    assert len(listed) == len(links)
    for item in listed:
        marked = " ".join(item.xpath(".//details//mark//text()"))
        assert normalize(marked) == normalize(item.xpath("string(blockquote)"))

    again = json.loads(run_laika("demo", "--json", env=env).stdout)
    assert [s["outcome"] for s in again["sources"]] == ["unchanged"] * 3
    assert run_laika("sources", "list", "-c", "Inbox", "--json", env=env).stdout == before

    shown = run_laika("demo", env=env)
    assert shown.returncode == 0, shown.stderr
    assert "verified: https://demo.laika.invalid/harbour-tides#:~:text=" in shown.stdout
    assert "[1/3]" in shown.stderr  # progress goes to stderr, the answers to stdout
