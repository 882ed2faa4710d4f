"""`sources.save_page`'s mode, canonical_url and lang through a real host."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from laika_host.capture.urls import same_site

from native_client import ARTICLE, Client, HostProcess

SELECTION = "<p>The moon pulls the oceans toward it, twice each lunar day, as seen here.</p>"


@given(st.sampled_from(["http", "https", "HTTPS"]), st.sampled_from(["", "www.", "WWW."]))
def test_same_site_ignores_scheme_case_and_www(scheme: str, www: str) -> None:
    assert same_site("https://news.test/a?x=1", f"{scheme}://{www}News.test./b")
    assert not same_site("https://news.test/a", f"{scheme}://{www}evil.test/news.test")
    assert not same_site("https://news.test/a", f"{scheme}://{www}news.test:8443/a")
    assert not same_site("https://news.test/a", "javascript:alert(1)//news.test")


@pytest.mark.slow  # > 3 s with the cores busy
def test_modes_canonical_url_and_lang(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    page = {"url": "https://tides.test/t?ref=feed", "html": ARTICLE}
    try:
        full = client.call(
            "sources.save_page",
            {**page, "mode": "full", "canonical_url": "https://www.tides.test/t", "lang": "en-GB"},
        )
        selected = client.call(
            "sources.save_page", {**page, "mode": "selection", "selection_html": SELECTION}
        )
        again = client.call(
            "sources.save_page", {**page, "mode": "selection", "selection_html": SELECTION}
        )
        no_selection = client.call("sources.save_page", {**page, "mode": "selection"})
        article = client.call(
            "sources.save_page",
            {
                **page,
                "mode": "article",
                "selection_html": SELECTION,
                "canonical_url": "https://www.tides.test/t",
            },
        )
        foreign = client.call(
            "sources.save_page",
            {**page, "url": "https://tides.test/u", "canonical_url": "https://evil.test/t"},
        )
        bad_lang = client.call("sources.save_page", {**page, "lang": "en<script>"})
        full_detail = client.call("sources.get", {"source_id": full["result"]["source"]["id"]})
        foreign_detail = client.call(
            "sources.get", {"source_id": foreign["result"]["source"]["id"]}
        )
        listed = client.call("sources.list", {})
        lookup = client.call("sources.lookup", {"url": "https://tides.test/t"})
    finally:
        host.kill()
    source = full_detail["result"]
    assert source["normalized_url"] == "https://www.tides.test/t"
    assert source["url"].startswith("https://tides.test/t")
    assert source["provenance"]["language"] == "en-GB"
    assert source["provenance"]["canonical_url"] == "https://www.tides.test/t"
    assert source["provenance"]["canonical_used"] is True
    assert source["provenance"]["mode"] == "full"
    assert selected["result"]["outcome"] == "new"
    assert selected["result"]["source"]["id"] != full["result"]["source"]["id"]
    assert again["result"]["outcome"] == "unchanged"
    assert no_selection["error"]["code"] == "bad_request"
    assert "selection_html" in no_selection["error"]["message"]
    assert article["result"]["source"]["id"] == full["result"]["source"]["id"]  # the page
    assert foreign_detail["result"]["normalized_url"] == "https://tides.test/u"
    assert foreign_detail["result"]["provenance"]["canonical_used"] is False
    assert bad_lang["error"]["code"] == "bad_request"
    assert len(listed["result"]["sources"]) == 3
    assert lookup["result"]["matches"] == []  # filed under its same-site canonical URL
