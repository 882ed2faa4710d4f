"""The prose family: summary, key takeaways, executive brief, report, study guide, email."""

from __future__ import annotations

from ..config import EmailConfig, ProseConfig
from ..items import Bullet, EmailPart, Paragraph, Section
from ..offline import prose
from ..spec import TransformType


def _for(config: ProseConfig) -> str:
    return f"Write for: {config.audience}. Length: {config.length} (about {config.count} items)."


TYPES = [
    TransformType(
        id="summary",
        title="Summary",
        description="A few paragraphs giving the gist of the collection.",
        config=ProseConfig,
        item=Paragraph,
        layout="paragraphs",
        instructions=lambda c: (
            "Summarize the documents in short paragraphs, one item per "
            f"paragraph, each citing the sentences it rests on. {_for(c)}"
        ),
        offline=prose.summary,
    ),
    TransformType(
        id="key-takeaways",
        title="Key takeaways",
        description="The points to remember, one bullet each.",
        config=ProseConfig,
        item=Bullet,
        layout="bullets",
        instructions=lambda c: (
            f"List the most important takeaways, one short bullet per item. {_for(c)}"
        ),
        offline=prose.key_takeaways,
    ),
    TransformType(
        id="executive-brief",
        title="Executive brief",
        description="Bottom line first, then key points, figures and next steps.",
        config=ProseConfig,
        item=Section,
        layout="sections",
        instructions=lambda c: (
            "Write an executive brief as sections: 'Bottom line' first, then "
            f"'Key points', 'Figures' and 'Next steps' where the documents support them. {_for(c)}"
        ),
        needs_model=(
            "a bottom line, key points and next steps have to be judged, not picked by word counts"
        ),
    ),
    TransformType(
        id="report",
        title="Report",
        description="An overview and a section per theme or source.",
        config=ProseConfig,
        item=Section,
        layout="sections",
        instructions=lambda c: (
            "Write a structured report: an 'Overview' section, then one section "
            f"per main theme. {_for(c)}"
        ),
        offline=prose.report,
    ),
    TransformType(
        id="study-guide",
        title="Study guide",
        description="Main ideas, key terms and facts to remember.",
        config=ProseConfig,
        item=Section,
        layout="sections",
        instructions=lambda c: (
            "Write a study guide as sections: 'Main ideas', one 'Term: ...' "
            f"section per key term, and 'Facts to remember'. {_for(c)}"
        ),
        needs_model=("main ideas, terms and facts to remember have to be judged and written"),
    ),
    TransformType(
        id="email-summary",
        title="Email summary",
        description="A subject line, an opening paragraph and bullets, ready to send.",
        config=EmailConfig,
        item=EmailPart,
        layout="email",
        instructions=lambda c: (
            "Write an email summarizing the documents: first an item with "
            "part 'subject', then 'paragraph' items, then 'bullet' items for the key points. "
            f"Tone: {c.tone}. {_for(c)}"
        ),
        needs_model=("a subject line and an opening paragraph have to be written"),
    ),
]
