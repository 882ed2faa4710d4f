"""Every example of spec 002 parses and round-trips; every syntax template is refused."""

from __future__ import annotations

import pytest

from laika_host.llmx import LlmxError, parse, parse_blocks, serialize, serialize_block
from llmx_spec import extract, spec_file, stored

EXAMPLES = stored()
VALID = {name: text for name, text in EXAMPLES.items() if "_example." in name}
TEMPLATES = {name: text for name, text in EXAMPLES.items() if "_template." in name}
TEST_HEADER = "HEADER:{f:spec,t:test,s:1}"


def test_the_extracted_files_match_the_spec() -> None:
    source = spec_file()
    if source is None:
        pytest.skip("spec 002 is not beside the repository (../shared/spec/002_*.txt)")
    assert extract(source.read_text(encoding="utf-8")) == EXAMPLES


def test_the_spec_has_an_example_of_every_block_type() -> None:
    types = {block.type for text in VALID.values() for block in parse_blocks(text)}
    assert types >= {"HEADER", "CTX", "REQ", "PLAN", "ACT", "OBS", "BLK", "ASK", "END", "RES"}
    assert len(VALID) == 16
    assert len(TEMPLATES) == 12


@pytest.mark.parametrize("name", sorted(VALID))
def test_each_example_parses_and_round_trips(name: str) -> None:
    text = VALID[name]
    blocks = parse_blocks(text)
    assert "\n".join(serialize_block(block) for block in blocks) == text
    if text.count("HEADER:") > 1:  # two one-line messages
        for line in text.splitlines():
            assert serialize(parse(line)) == line
        return
    message_text = text if text.startswith("HEADER:") else f"{TEST_HEADER}\n{text}"
    message = parse(message_text)
    assert serialize(message) == message_text
    assert parse(serialize(message)) == message


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_each_syntax_template_is_refused_with_a_nack(name: str) -> None:
    with pytest.raises(LlmxError) as caught:
        parse_blocks(TEMPLATES[name])
    assert caught.value.nack().startswith('RES:{o:"NACK",msg:"parse error: ')
    assert caught.value.at is not None


def test_the_custom_fields_example_keeps_them_with_warnings() -> None:
    message = parse(f"{TEST_HEADER}\n{VALID['28_8.2_example.llmx']}")
    assert message.blocks[1].fields["x_team"] == "frontend"
    assert message.warnings == (
        "custom field x_team in block 2 (REQ) kept",
        "custom field x_deadline in block 2 (REQ) kept",
    )
    assert message.warning_lines()[0] == (
        'RES:{o:"WARN",msg:"custom field x_team in block 2 (REQ) kept"}'
    )
