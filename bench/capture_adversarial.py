"""Capture times on pathological but valid pages (issue 12, findings 2 and 14).

    .venv/bin/python bench/capture_adversarial.py [--size 1000000] [--only NAME]

Each page is built to a size (default just under 1 MB) from one shape that has made an
extractor, the parser or a regex slow or crash: wide tables, deep nesting, huge attribute
counts, many unclosed tags, long single lines, deep JSON-LD, flat runs of tiny elements, and
the review's 2.5 MB page of `<script>` strings in comments. Prints the time of each capture
(in this process, after one warm-up capture), the signals, and the slowest phase. The tests
build their pages with the same `SHAPES` (tests/test_capture_adversarial.py).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from laika_host.capture import CaptureError, capture_html

INTRO = (
    "<h1>Field notes on tides</h1><p>High tide comes twice a day because the moon pulls the "
    "oceans; the tables list the hours for each harbour along the coast, and sailors read "
    "them before leaving port.</p>"
)
Shape = Callable[[int], tuple[str, str]]
"""A pathological part of a page, about `size` characters: (what goes in <head>, in <body>)."""


def page(body: str, head: str = "") -> str:
    return f"<html><head><title>Field notes on tides</title>{head}</head><body>{body}</body></html>"


def build(shapes: list[str], size: int) -> str:
    """A page of about `size` characters: the intro, then each shape in an equal share."""
    share = (size - 200) // max(1, len(shapes))
    parts = [SHAPES[name](share) for name in shapes]
    return page(INTRO + "".join(body for _, body in parts), "".join(head for head, _ in parts))


def repeat_to(size: int, head: str, unit: str, tail: str = "") -> str:
    """`head`, as many `unit`s as fit in `size` characters, then `tail`."""
    room = max(0, size - len(head) - len(tail))
    return head + unit * max(1, room // max(1, len(unit))) + tail


def body(build_body: Callable[[int], str]) -> Shape:
    return lambda size: ("", build_body(size))


def wide_table(cell: str) -> Shape:
    return body(lambda size: repeat_to(size, "<table><tr>", cell, "</tr></table>"))


def nested(open_tag: str, close_tag: str) -> Shape:
    def build_body(size: int) -> str:
        count = max(1, size // (len(open_tag) + 2 + len(close_tag)))
        return (open_tag + "w ") * count + close_tag * count + "<p>after the nesting</p>"

    return body(build_body)


def repeated(unit: str) -> Shape:
    return body(lambda size: repeat_to(size, "", unit))


def many_attributes(unique: bool) -> Shape:
    def build_body(size: int) -> str:
        count = max(1, size // 10)
        names = (f"a{i:x}" if unique else "a" for i in range(count))
        return "<p " + " ".join(f"{name}=1" for name in names) + ">text with attributes</p>"

    return body(build_body)


def attribute_tags(size: int) -> str:
    tag = "<span " + " ".join(f"d{i:x}" for i in range(2_000)) + ">w</span>"
    return repeat_to(size, "<p>", tag, "</p>")


def json_ld(data: str) -> tuple[str, str]:
    return f'<script type="application/ld+json">{data}</script>', ""


def deep_json_ld(opener: str, closer: str) -> Shape:
    def build_head(size: int) -> tuple[str, str]:
        depth = max(1, size // (len(opener) + len(closer)))
        return json_ld(opener * depth + "1" * (opener != "[") + closer * depth)

    return build_head


def huge_json_ld(size: int) -> tuple[str, str]:
    items = [{"@type": "Thing", "name": f"n{i}"} for i in range(size // 40)]
    return json_ld(json.dumps({"@context": "https://schema.org", "@graph": items})[:size])


def commented_scripts(size: int, tags: int = 3_000) -> str:
    """The review's page: `<script>` strings inside comments, which the extension's serializer
    keeps, so that each looks like an unclosed `<script>` to a regex."""
    paragraph = "<p>" + "word " * max(1, (size // tags - 25) // 5) + "</p>\n"
    comments = "".join(f"<!-- <script> -->{paragraph}" for _ in range(tags))
    return f"<article>{comments}</article>"


SHAPES: dict[str, Shape] = {
    "wide_table": wide_table("<td>c</td>"),
    "wide_table_words": wide_table("<td>cell words</td>"),
    "many_rows": repeated("<tr><td>c</td><td>d</td></tr>"),
    "deep_divs": nested("<div>", "</div>"),
    "deep_lists": nested("<ul><li>", "</li></ul>"),
    "deep_tables": nested("<table><tr><td>", "</td></tr></table>"),
    "deep_blockquotes": nested("<blockquote>", "</blockquote>"),
    "deep_inline": nested("<b><i>", "</i></b>"),
    "many_attributes": many_attributes(unique=True),
    "repeated_attributes": many_attributes(unique=False),
    "many_attribute_tags": body(attribute_tags),
    "unclosed_b": repeated("<b>w "),
    "unclosed_a": repeated("<a href='/x'>w "),
    "unclosed_li": repeated("<li>w "),
    "unclosed_td": repeated("<td>w "),
    "unclosed_div": repeated("<div>w "),
    "unclosed_p": repeated("<p>w "),
    "unclosed_font": repeated("<font>w "),
    "unclosed_scripts": repeated("<script>var x = 1;"),
    "unclosed_comments": repeated("<!-- <p>hidden</p>"),
    "unclosed_quotes": repeated('<p title="x>w '),
    "long_line": body(lambda size: repeat_to(size, "<p>", "word", "</p>")),
    "long_pre_lines": body(lambda size: repeat_to(size, "<pre>", "a" * 999 + "\n", "</pre>")),
    "flat_paragraphs": repeated("<p>w</p>"),
    "flat_spans": repeated("<span>w</span>"),
    "flat_links": repeated("<a href='/x'>w</a> "),
    "flat_empty": repeated("<i></i>"),
    "flat_br": repeated("<br>"),
    "deep_json_ld": deep_json_ld("[", "]"),
    "deep_json_ld_objects": deep_json_ld('{"a":', "}"),
    "huge_json_ld": huge_json_ld,
    "commented_scripts": body(commented_scripts),
}
REVIEW_PAGE_SIZE = 2_500_000
"""The review's page (`commented_scripts`) is 2.5 MB; every other page stays under 1 MB."""


def timed_capture(html: str) -> tuple[float, str]:
    """Seconds, and a one-line outcome (signals and the slowest phase, or the error)."""
    started = time.perf_counter()
    try:
        result = capture_html(html, "https://example.org/notes")
    except CaptureError as error:
        return time.perf_counter() - started, f"error {error.kind}: {error}"
    elapsed = time.perf_counter() - started
    slowest = max(result.timings.items(), key=lambda item: item[1])
    return elapsed, (
        f"{len(result.markdown):>6} chars  signals={','.join(result.signals) or '-'}  "
        f"slowest={slowest[0]} {slowest[1]:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=999_000, help="page size in characters")
    parser.add_argument("--only", action="append", help="run only this page (repeatable)")
    args = parser.parse_args()
    timed_capture(page(INTRO))  # warm-up: imports
    for name in args.only or SHAPES:
        size = REVIEW_PAGE_SIZE if name == "commented_scripts" else args.size
        html = build([name], size)
        elapsed, outcome = timed_capture(html)
        print(f"{name:22} {len(html):>9,} chars {elapsed:7.2f} s  {outcome}", flush=True)


if __name__ == "__main__":
    main()
