"""The outline family: outline, mind map, slide deck, podcast script."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..config import PodcastConfig, SlidesConfig, TreeConfig
from ..items import Node, Segment, Slide
from ..offline import outline
from ..spec import TransformType


def _keep_hosts(item: Segment, config: PodcastConfig, note: Callable[[str], None]) -> Any:
    """A model's line by one of the hosts named (their spelling); another speaker's line is
    left out, with a note."""
    named = {" ".join(host.lower().split()): host for host in config.hosts}
    host = named.get(" ".join(item.speaker.lower().split()))
    if host is None:
        note(f"lines by speakers other than {', '.join(config.hosts)} were left out")
        return None
    return item.model_copy(update={"speaker": host})


TYPES = [
    TransformType(
        id="outline",
        title="Outline",
        description="The structure of the sources as a nested outline.",
        config=TreeConfig,
        item=Node,
        layout="tree",
        instructions=lambda c: (
            "Write a nested outline, one node per item in reading order, "
            f"`level` 1 for top entries, at most {c.depth} levels deep."
        ),
        offline=outline.outline,
    ),
    TransformType(
        id="mind-map",
        title="Mind map",
        description="Themes branching into the points under them.",
        config=TreeConfig,
        item=Node,
        layout="tree",
        instructions=lambda c: (
            "Write a mind map as nodes in depth-first order: `level` 1 for the "
            f"main themes, deeper levels for the ideas under them, at most {c.depth} levels."
        ),
        needs_model=(
            "naming the themes that link the sources takes a "
            "model (word counts picked words like “more” and “time”)"
        ),
    ),
    TransformType(
        id="slide-deck",
        title="Slide deck",
        description="Markdown slides: a title and a few bullets each.",
        config=SlidesConfig,
        item=Slide,
        layout="slides",
        instructions=lambda c: (
            "Write a slide deck, one slide per item, each with a title and at "
            f"most 5 short bullets, for {c.audience}. At most {c.count} slides."
        ),
        offline=outline.slide_deck,
    ),
    TransformType(
        id="podcast-script",
        title="Podcast script",
        description="A conversation between hosts walking through the sources.",
        config=PodcastConfig,
        item=Segment,
        layout="script",
        instructions=lambda c: (
            "Write a podcast script as a conversation between "
            f"{', '.join(c.hosts)}, one spoken line per item with its `speaker`. "
            f"Length: {c.length} (about {c.count * 2} lines), for {c.audience}."
        ),
        needs_model=("a conversation has to be written"),
        conform=_keep_hosts,
    ),
]
