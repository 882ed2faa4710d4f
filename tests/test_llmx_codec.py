"""The LLMX codec (spec 002): round trips over generated messages, a NACK naming the problem
for each invalid message, nothing but `LlmxError` on any text, and linear time throughout."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from complexity import assert_linear
from laika_host.errors import RefusedError, exit_code
from laika_host.llmx import (
    LlmxError,
    Message,
    expand_op,
    expand_target,
    match_batch,
    parse,
    serialize,
)
from laika_host.llmx.lexer import Lexer
from laika_host.llmx.limits import MAX_BLOCKS, MAX_DEPTH
from llmx_strategies import messages

H = "HEADER:{f:a,t:b,s:1}"


@settings(max_examples=300)
@given(messages())
def test_serialize_then_parse_is_the_identity(message: Message) -> None:
    text = serialize(message)
    parsed = parse(text)
    assert parsed == message
    assert serialize(parsed) == text


@given(messages())
def test_whitespace_between_tokens_changes_nothing(message: Message) -> None:
    text = serialize(message)
    lexer = Lexer(text)
    pieces = []
    while (token := lexer.next()).kind != "end":
        pieces.append(text[token.offset : lexer.pos])
    assert parse(" \n\t".join(pieces)) == message


INVALID = [
    ("", "empty message"),
    ('REQ:{o:"x",pr:2}', "starts with HEADER"),
    (f"{H}\n{H}", "a second HEADER"),
    ("HEADER:{f:a,t:b}", "missing required field 's'"),
    ("HEADER:{f:a,t:b,s:-1}", "whole number >= 0"),
    ("HEADER:{f:a,t:b,s:1.5}", "whole number >= 0"),
    ("HEADER:{f:a,t:b,s:1,b:3}", "field 'b'"),
    (f"{H}\nREQ:{{pr:2}}", "missing required field 'o' in REQ"),
    (f'{H}\nREQ:{{o:"x",pr:6}}', "priority 1..5"),
    (f'{H}\nREQ:{{o:"x",pr:0}}', "priority 1..5"),
    (f'{H}\nREQ:{{o:"x",pr:true}}', "priority 1..5"),
    (f'{H}\nREQ:{{o:"x",pr:2,team:1}}', "unknown field in REQ"),
    (f'{H}\nREQ:{{o:"x",pr:2,d:[1]}}', "item 1 must be a string"),
    (f'{H}\nCTX:{{f:["a"]}}', "missing required field 'p'"),
    (f"{H}\nCTX:{{p:x,st:[1]}}", "must be an object"),
    (f'{H}\nCTX:{{p:x,f:["p:a.ts#L9-3"]}}', "ends before it starts"),
    (f"{H}\nPLAN:{{i:1}}", "PLAN takes a list"),
    (f'{H}\nPLAN:[(i:1,t:"x",s:Q)]', "must be P|I|C|X"),
    (f"{H}\nPLAN:[(i:1,s:P)]", "missing required field 't'"),
    (f"{H}\nPLAN:[1]", "step 1 must be a tuple"),
    (f"{H}\nACT:{{op:edit}}", "missing required field 'tgt'"),
    (f'{H}\nACT:{{op:delete,tgt:"x"}}', "unknown operation 'delete'"),
    (f'{H}\nACT:{{op:read,tgt:"p:"}}', "needs a path after p:"),
    (f'{H}\nACT:{{op:read,tgt:"p:a#Lx"}}', "line anchor"),
    (f'{H}\nACT:{{i:1,op:read,tgt:"x"}}', "field 'i'"),
    (f'{H}\nACT:{{i:A,op:read,tgt:"x"}}\nACT:{{i:A,op:read,tgt:"y"}}', "used twice"),
    (f"{H}\nOBS:{{s:OK}}", "missing required field 'c' in OBS"),
    (f"{H}\nOBS:{{s:ERR}}", "s:ERR needs e"),
    (f"{H}\nOBS:{{s:ok,c:{{}}}}", "must be OK|ERR"),
    ("HEADER:{f:a,t:b,s:1,b:B}\nOBS:{s:OK,c:{}}", "must name its action with ai"),
    ("HEADER:{f:a,t:b,s:1,b:B}\nOBS:{ai:A,s:OK,c:{}}\nOBS:{ai:A,s:OK,c:{}}", "reported twice"),
    (f'{H}\nBLK:{{w:"x"}}', "missing required field 'a'"),
    (f'{H}\nBLK:{{w:"x",a:[],esc:1}}', "true or false"),
    (f'{H}\nASK:{{q:"x"}}', "missing required field 'o'"),
    (f'{H}\nEND:{{n:"x"}}', "missing required field 'del'"),
    (f'{H}\nRES:{{msg:"x"}}', "missing required field 'o'"),
    (f'{H}\nRES:{{o:"x",o:"y"}}', "given twice"),
    (f'{H}\nRES:{{o:"x"', "expected ',' or '}'"),
    (f'{H}\nRES:{{o:"x}}', "string never closed"),
    (f'{H}\nRES:{{o:"\\q"}}', "unknown escape"),
    (f'{H}\nRES:{{o:"\\ud800"}}', "surrogate"),
    (f"{H}\nRES:{{o:null}}", "has no null"),
    (f"{H}\nRES:{{o:1.}}", "'.' must be followed by digits"),
    (f'{H}\nRES:"x"', "needs an object"),
    (f'{H}\nRES {{o:"x"}}', "expected ':' after block type RES"),
    (f'{H}\nRES:{{o?:"x"}}', "expected ':' after field name o"),
    (f'{H}\nRES:{{o:"x"}} junk', "expected ':' after block type junk"),
    (f"{H}\nRES:{{o:é}}", "unexpected character"),
    (f"{H}\nX_A:{{v:{'1' * 5000}}}", "number longer than 100"),
    (f"{H}\nX_A:{{v:1{'0' * 400}.5}}", "number longer than 100"),
    (f"{H}\nX_A:{{v:{'[' * (MAX_DEPTH + 1)}}}", f"deeper than {MAX_DEPTH}"),
    (H + '\nRES:{o:"x"}' * MAX_BLOCKS, f"more than {MAX_BLOCKS} blocks"),
    (H + " " * (1 << 20), "longer than"),
]


@pytest.mark.parametrize(("text", "problem"), INVALID)
def test_each_invalid_message_is_refused_with_a_nack_naming_the_problem(
    text: str, problem: str
) -> None:
    with pytest.raises(LlmxError) as caught:
        parse(text)
    error = caught.value
    assert problem in str(error)
    assert error.nack() == serialize_nack(str(error))
    assert isinstance(error, RefusedError)
    assert exit_code(error) == 1


def serialize_nack(message: str) -> str:
    from laika_host.llmx import Block, serialize_block

    return serialize_block(Block("RES", {"o": "NACK", "msg": message}))


def test_a_nack_names_the_block_the_field_and_the_position() -> None:
    with pytest.raises(LlmxError) as caught:
        parse(f'{H}\nCTX:{{p:x}}\nREQ:{{o:"go",pr:9}}')
    assert str(caught.value) == (
        "parse error: block 3 (REQ), field 'pr', line 3 column 13: "
        "must be a priority 1..5 (1=critical, 5=low) (got 9)"
    )


def test_unknown_types_are_dropped_and_custom_ones_kept_with_warnings() -> None:
    message = parse(f'{H}\nCUSTOM:{{a:1}}\nX_NOTE:[1,"two"]\nRES:{{o:"ACK",x_why:"k"}}')
    assert [block.type for block in message.blocks] == ["HEADER", "X_NOTE", "RES"]
    assert message.warning_lines() == [
        'RES:{o:"WARN",msg:"unknown message type: CUSTOM ignored"}',
        'RES:{o:"WARN",msg:"custom message type X_NOTE in block 3 (X_NOTE) kept"}',
        'RES:{o:"WARN",msg:"custom field x_why in block 4 (RES) kept"}',
    ]


def test_the_shortcuts_expand_and_keep_their_text() -> None:
    assert expand_target("p:src/auth.ts#L42").lines == (42, 42)
    assert expand_target("p:file.ts#L10-25").to_json() == {
        "text": "p:file.ts#L10-25",
        "kind": "path",
        "path": "file.ts",
        "lines": [10, 25],
    }
    assert expand_target("^/src").path == "../src"
    assert expand_target("@A1").kind == "reference"
    assert expand_target("*").kind == "all"
    assert expand_target("npm test").kind == "text"
    assert expand_op("+").operation == "write"
    assert expand_op("!edit").meanings == ("force",)
    assert expand_op("!edit").operation == "edit"
    assert expand_op("-").meanings == ("remove",)
    text = f'{H}\nACT:{{op:~,tgt:"^/src"}}\nACT:{{op:"!edit",tgt:"p:a.ts#L3"}}'
    assert serialize(parse(text)) == text.replace('"!edit"', "!edit")


def test_batch_replies_match_their_actions_in_any_order() -> None:
    request = parse(
        'HEADER:{f:Claude,t:ALL,s:1,b:B1}\nACT:{i:A1,op:read,tgt:"p:f1"}\n'
        'ACT:{i:A2,op:read,tgt:"p:f2"}\nACT:{i:A3,op:search,tgt:"p:src/"}'
    )
    first = parse("HEADER:{f:Gemini,t:Claude,s:2,b:B1}\nOBS:{ai:A3,s:OK,c:{matches:5}}")
    second = parse('HEADER:{f:Gemini,t:Claude,s:3,b:B1}\nOBS:{ai:A1,s:ERR,e:"denied"}')
    match = match_batch(request, first, second)
    assert list(match.results) == ["A1", "A2", "A3"]
    assert match.missing == ["A2"]
    assert match.results["A3"] is not None
    assert match.results["A3"].c == {"matches": 5}
    stray = parse("HEADER:{f:G,t:C,s:4,b:B1}\nOBS:{ai:A9,s:OK,c:{}}")
    with pytest.raises(LlmxError, match="which no ACT of batch B1 names"):
        match_batch(request, stray)
    other = parse("HEADER:{f:G,t:C,s:4,b:B2}\nOBS:{ai:A1,s:OK,c:{}}")
    with pytest.raises(LlmxError, match="belongs to batch 'B2'"):
        match_batch(request, other)
    with pytest.raises(LlmxError, match="reported twice"):
        match_batch(request, first, first)


LLMX_ALPHABET = st.sampled_from(
    [*list('{}[](),:"\\ \n-.0123456789aAHEADERfts_xX+~?!*@#Lp^'), "HEADER:", "true", "\\u"]
)


@settings(max_examples=500)
@given(st.one_of(st.text(), st.lists(LLMX_ALPHABET, max_size=60).map("".join)))
@example('HEADER:{f:a,t:b,s:1}\nX_A:{v:"\\ud83d\\ude00"}')
def test_any_text_raises_nothing_but_the_nack(text: str) -> None:
    try:
        message = parse(text)
    except LlmxError:
        return
    assert parse(serialize(message)) == message


@given(messages(), st.data())
def test_a_damaged_message_raises_nothing_but_the_nack(
    message: Message, data: st.DataObject
) -> None:
    text = serialize(message)
    cut = data.draw(st.integers(0, len(text)))
    insert = data.draw(LLMX_ALPHABET)
    for damaged in (text[:cut], text[:cut] + insert + text[cut:], text[:cut] + text[cut + 1 :]):
        with contextlib.suppress(LlmxError):
            parse(damaged)


def _blocks(n: int) -> str:
    return H + "".join(
        f'\nACT:{{i:A{k},op:edit,tgt:"p:a.ts#L1-9",args:{{k:[1,2.5,true,"s\\n"]}}}}'
        for k in range(n)
    )


def _nested(n: int) -> str:
    deep = "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1)
    return H + "".join(f"\nX_D:{{v:{deep}}}" for _ in range(n))


@pytest.mark.parametrize(
    "build",
    [
        _blocks,
        _nested,
        lambda n: H + '\nRES:{o:"' + "a\\n" * (n * 20) + '"}',
        lambda n: H + '\nRES:{o:"' + "a" * (n * 50),  # never closed
        lambda n: H + "\nREQ:{pr:2," + ",".join(f"x_{k}:{k}" for k in range(n)) + "}",
    ],
    ids=["blocks", "nested", "escapes", "unclosed", "fields"],
)
def test_parsing_is_linear_in_the_input(build: object) -> None:
    assert callable(build)

    def prepare(size: int) -> object:
        text = build(size)

        def run() -> None:
            with contextlib.suppress(LlmxError):
                parse(text)

        return run

    assert_linear(prepare, 500, 4_000, bound=20)  # 8x the input; quadratic would be 64x


@pytest.mark.parametrize(
    "text",
    [
        H + "\nX_A:{v:" + "9" * 1_000_000 + "}",
        H + "\nX_A:{v:" + "[" * 1_000_000,
        H + '\nX_A:{v:"' + "\\" * 1_000_000,
    ],
    ids=["digits", "brackets", "backslashes"],
)
def test_hostile_input_is_refused_fast(text: str) -> None:
    import time

    started = time.process_time()
    with pytest.raises(LlmxError):
        parse(text)
    assert time.process_time() - started < 2.0  # linear scans of 1 MB take well under that
