"""An outside grader's corpus for LLMX v1.0 (spec 002), written from the spec before the codec.

`tests/llmx_conformance/valid/*.llmx` must parse, keep the blocks and values their leading
`# blocks:` / `# value:` / `# warn:` lines state, and survive serialize -> parse unchanged.
`tests/llmx_conformance/invalid/*.llmx` hold one defect each and must be refused with a NACK
whose message names every fragment of their `# expect:` line. The README there lists what the
spec requires and why each expectation holds.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from laika_host.llmx import LlmxError, Message, match_batch, parse, parse_blocks, serialize
from laika_host.llmx.model import Value

from support import run_laika

CORPUS = Path(__file__).resolve().parent / "llmx_conformance"
_META = re.compile(r"# (blocks|value|warn|expect): (.*)")


@dataclass(frozen=True)
class Case:
    """One corpus file: the message text and what its leading `# key: ...` lines promise."""

    name: str
    text: str
    blocks: tuple[str, ...] = ()
    values: tuple[tuple[str, Value], ...] = ()
    warns: tuple[str, ...] = ()
    expect: tuple[str, ...] = field(default=())


def _load(kind: str) -> dict[str, Case]:
    return {path.stem: _case(path) for path in sorted((CORPUS / kind).glob("*.llmx"))}


def _case(path: Path) -> Case:
    lines = path.read_bytes().decode("utf-8").split("\n")
    meta: dict[str, list[str]] = {"blocks": [], "value": [], "warn": [], "expect": []}
    while lines and (found := _META.fullmatch(lines[0])) is not None:
        meta[found.group(1)].append(found.group(2))
        lines.pop(0)
    values = tuple(_value_line(line) for line in meta["value"])
    return Case(
        name=path.stem,
        text="\n".join(lines),
        blocks=tuple(" ".join(meta["blocks"]).split()),
        values=values,
        warns=tuple(meta["warn"]),
        expect=tuple(part.strip() for line in meta["expect"] for part in line.split(" | ")),
    )


def _value_line(line: str) -> tuple[str, Value]:
    path, _, expected = line.partition(" = ")
    loaded: Value = json.loads(expected)
    return path, loaded


def _at(message: Message, path: str) -> Value:
    """The value at `BLOCK_INDEX.key.0.key...` (list steps are indexes)."""
    first, *steps = path.split(".")
    value: Value = message.blocks[int(first)].value
    for step in steps:
        value = value[int(step)] if isinstance(value, list) else value[step]  # type: ignore[index]
    return value


VALID = _load("valid")
INVALID = _load("invalid")


def test_the_corpus_is_large_enough_and_every_file_states_its_expectation() -> None:
    assert len(VALID) >= 60
    assert len(INVALID) >= 60
    assert all(case.blocks for case in VALID.values())
    assert all(case.expect for case in INVALID.values())


@pytest.mark.parametrize("name", sorted(VALID))
def test_a_valid_message_parses_to_what_it_says_and_round_trips(name: str) -> None:
    case = VALID[name]
    message = parse(case.text)
    assert tuple(block.type for block in message.blocks) == case.blocks
    for path, expected in case.values:
        assert _at(message, path) == expected, path
        assert type(_at(message, path)) is type(expected), path  # 1 stays int, 1.0 float
    for fragment in case.warns:
        assert any(fragment in warning for warning in message.warnings), message.warnings
    canonical = serialize(message)
    again = parse(canonical)
    assert again == message
    # An unknown type is dropped (7.3), so only its warning does not survive the round trip.
    kept = tuple(w for w in message.warnings if not w.startswith("unknown message type"))
    assert again.warnings == kept
    assert serialize(again) == canonical


@pytest.mark.parametrize("name", sorted(INVALID))
def test_an_invalid_message_is_refused_with_a_nack_naming_the_problem(name: str) -> None:
    case = INVALID[name]
    with pytest.raises(LlmxError) as refused:
        parse(case.text)
    text = str(refused.value)
    assert text.startswith("parse error: ")
    for fragment in case.expect:
        assert fragment.lower() in text.lower(), (fragment, text)
    # The NACK is itself a spec RES block carrying exactly that message (7.2).
    (nack,) = parse_blocks(refused.value.nack())
    assert nack.type == "RES"
    assert nack.value == {"o": "NACK", "msg": text}


SAMPLE_VALID = ("every_block_type", "batch_request_5_1", "unknown_type_ignored", "crlf_line_breaks")
SAMPLE_INVALID = ("no_header", "req_priority_6", "bad_escape", "trailing_text_line")


@pytest.mark.parametrize("name", SAMPLE_VALID)
def test_laika_llmx_parse_accepts_a_valid_sample(name: str) -> None:
    case = VALID[name]
    result = run_laika("llmx", "parse", "-", stdin=case.text.encode())
    assert result.returncode == 0, result.stdout + result.stderr
    printed = json.loads(result.stdout)
    assert [block["type"] for block in printed["blocks"]] == list(case.blocks)


@pytest.mark.parametrize("name", SAMPLE_INVALID)
def test_laika_llmx_parse_prints_the_nack_for_an_invalid_sample(name: str) -> None:
    case = INVALID[name]
    result = run_laika("llmx", "parse", "-", stdin=case.text.encode())
    assert result.returncode == 1
    line = result.stdout.strip()
    assert line.startswith('RES:{o:"NACK",msg:"parse error: ')
    for fragment in case.expect:
        assert fragment.lower() in line.lower(), (fragment, line)


# --- properties over the corpus -------------------------------------------------------------

_VALID_NAMES = st.sampled_from(sorted(VALID))
_BETWEEN = st.text(alphabet=" \t\r\n", max_size=4)


@given(_VALID_NAMES, st.data())
def test_whitespace_between_blocks_is_ignored(name: str, data: st.DataObject) -> None:
    """2.2 rules 6-7: any whitespace (or none) between blocks gives the same message."""
    message = parse(VALID[name].text)
    lines = serialize(message).split("\n")
    joined = lines[0]
    for line in lines[1:]:
        joined += data.draw(_BETWEEN) + line
    assert parse(data.draw(_BETWEEN) + joined + data.draw(_BETWEEN)) == message


@given(_VALID_NAMES, st.data())
def test_a_block_cut_short_is_refused_with_its_line(name: str, data: st.DataObject) -> None:
    """Truncating inside the last block never yields a message: the NACK says where."""
    lines = serialize(parse(VALID[name].text)).split("\n")
    last = lines[-1]
    start = last.index(":") + 1
    cut = data.draw(st.integers(min_value=start, max_value=len(last) - 1))
    with pytest.raises(LlmxError) as refused:
        parse("\n".join([*lines[:-1], last[:cut]]))
    assert f"line {len(lines)}" in str(refused.value)


@given(st.sets(st.from_regex(r"A[0-9]{1,3}", fullmatch=True), min_size=1, max_size=12), st.data())
def test_batch_replies_match_their_actions_in_any_order(ids: set[str], data: st.DataObject) -> None:
    """5.2: OBS reference ACT ids and may arrive out of order, split over several replies."""
    order = sorted(ids)
    request = parse(
        "HEADER:{f:Claude,t:ALL,s:1,b:B1}\n"
        + "\n".join(f'ACT:{{i:{ident},op:read,tgt:"p:{ident}.ts"}}' for ident in order)
    )
    shuffled = data.draw(st.permutations(order))
    split = data.draw(st.integers(min_value=0, max_value=len(shuffled)))
    replies = [
        parse(
            f"HEADER:{{f:Gemini,t:Claude,s:{number},b:B1}}\n"
            + "\n".join(f"OBS:{{ai:{ident},s:OK,c:{{n:{len(ident)}}}}}" for ident in part)
        )
        for number, part in ((2, shuffled[:split]), (3, shuffled[split:]))
    ]
    matched = match_batch(request, *replies)
    assert matched.complete
    assert list(matched.results) == order
    for ident, obs in matched.results.items():
        assert obs is not None
        assert obs.ai == ident
        assert obs.c == {"n": len(ident)}
    partial = match_batch(request, replies[0])
    assert partial.missing == [ident for ident in order if ident not in shuffled[:split]]


def test_a_batch_reply_naming_no_action_of_the_request_is_refused() -> None:
    request = parse(VALID["batch_request_5_1"].text)
    stray = parse("HEADER:{f:Gemini,t:Claude,s:2,b:B1}\nOBS:{ai:A9,s:OK,c:{}}")
    other_batch = parse("HEADER:{f:Gemini,t:Claude,s:2,b:B2}\nOBS:{ai:A1,s:OK,c:{}}")
    with pytest.raises(LlmxError, match=r"OBS.*'ai'.*A9"):
        match_batch(request, stray)
    with pytest.raises(LlmxError, match=r"HEADER.*'b'.*B2"):
        match_batch(request, other_batch)


def test_a_batch_action_without_an_id_is_read_but_cannot_be_matched() -> None:
    """3.5 makes ACT's `i` optional, so the message parses; 5.2 matches replies by id, so
    pairing replies with such a batch is refused, naming the field to add."""
    request = parse(VALID["batch_act_without_id"].text)
    with pytest.raises(LlmxError, match=r"ACT.*'i'.*give it i:ID"):
        match_batch(request)
