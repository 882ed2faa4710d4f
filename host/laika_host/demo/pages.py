"""The demo's pages and questions: original text written for Laika, shipped in the package."""

from __future__ import annotations

from typing import NamedTuple

COLLECTION = "Demo"
"""The only collection the demo writes to."""
DEMO_HOST = "demo.laika.invalid"
"""Where the demo pages say they come from. `.invalid` is reserved never to resolve (RFC 6761),
so no one can ever serve content at these addresses: a citation link to them cannot open, and
cannot open someone else's page either. The pages ship in the package instead; the answers page
shows each quote in the stored copy. (A `file://` copy is no way out: only http, https and
mailto links survive rendering, and widening that for a demo would weaken it everywhere.)"""


class DemoPage(NamedTuple):
    url: str
    html: str


def _page(title: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        f"<nav><a href='/'>Field notes</a> <a href='/about'>About</a></nav>"
        f"<article><h1>{title}</h1>{body}</article><footer>Laika demo pages</footer></body></html>"
    )


PAGES = (
    DemoPage(
        f"https://{DEMO_HOST}/harbour-tides",
        _page(
            "Harbour tides",
            [
                "High water comes to the harbour twice a day because the moon pulls the oceans "
                "toward it while the earth turns underneath the bulge of water.",
                "A second bulge forms on the far side of the earth, where the moon's pull is "
                "weakest, so every point on the coast passes under two bulges each day.",
                "Spring tides run higher than neap tides because the moon and the sun pull "
                "together at new and full moon.",
                "The harbour office prints a table of the week's high-water times every Monday.",
            ],
        ),
    ),
    DemoPage(
        f"https://{DEMO_HOST}/sourdough-starter",
        _page(
            "Keeping a sourdough starter",
            [
                "A sourdough starter is a paste of flour and water in which wild yeast and "
                "lactic bacteria live together.",
                "Feed the starter once a day by discarding half of it and stirring in equal "
                "weights of fresh flour and water.",
                "A starter kept in the fridge slows down and needs feeding only once a week.",
                "The starter is ready to bake with when it doubles in size within six hours "
                "of a feeding.",
            ],
        ),
    ),
    DemoPage(
        f"https://{DEMO_HOST}/bees-in-winter",
        _page(
            "How honey bees survive the winter",
            [
                "Honey bees survive the winter by forming a tight cluster around the queen "
                "inside the hive.",
                "Worker bees shiver their flight muscles to keep the centre of the cluster "
                "warm, even when the air outside is freezing.",
                "The colony lives on the honey it stored during the summer, so beekeepers "
                "leave enough honey in the hive before the cold months.",
            ],
        ),
    ),
)

QUESTIONS = (
    "Why does high water come twice a day?",
    "How often should I feed a sourdough starter?",
)
