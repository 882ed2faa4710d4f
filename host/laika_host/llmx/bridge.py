"""LLMCP packets <-> LLMX messages (spec 000 <-> spec 002), where both can say the same thing.

    request  -> HEADER + CTX + X_DOC (one per context document) + REQ
    response -> HEADER + RES (the answer) + ACT (one per tool call)
    tool call <-> ACT{i,op,tgt:<tool name>,args}     tool result <-> OBS{ai,s,c|e}

What LLMX has no field for rides in `x_` fields (kept by any LLMX reader, reported as custom):
the packet id (`x_id`), creation time (`x_at`), conversation (`x_conv`), the request answered
(`x_re`), the user message id (`x_msg`), the task (`x_task`, `x_args`), the output format
(`x_out`), the answer's title, render tree and citations (`x_title`, `x_render`, `x_cites`).
JSON that LLMX values cannot hold (null, keys that are not words) rides as `{x_json:"..."}`
(`values`). So packet -> LLMX -> packet is the identity. The other way, what LLMCP has no
place for is lost: REQ's priority (written 3), ACT ids (written T1, T2, ...) and op (derived
from the tool's risk; the tool name in `tgt` decides), BLK, ASK, PLAN, END and X_ blocks
other than X_DOC. A reply written by a model without the envelope fields gets them from the
request it answers (`llmx_to_response(message, request=...)`).

Compact mode (grounded chat for small models) uses a short form instead: `compact_request`
writes no `x_` envelope (it cost tokens and warnings, and the host keeps the envelope), and
`compact_reply` reads a model's RES blocks (answer, then one per citation) as the LLMCP answer
JSON that the agent's reply parser validates.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar, get_args

from pydantic import ValidationError

from ..issues import issues_from
from ..protocol import (
    PROTOCOL_NAME,
    PROTOCOL_VERSION,
    RequestPacket,
    ResponsePacket,
    SenderRole,
    ToolCall,
    format_timestamp,
)
from .errors import LlmxError
from .model import HEADER, Act, Block, Fields, Message, Obs, Value
from .values import from_json, to_json

PROJECT = "laika"
MODEL = "model"
DOC_BLOCK = "X_DOC"
DEFAULT_PRIORITY = 3
_OPS_BY_RISK = {"read": "read", "browser_read": "read", "write": "write"}
_ROLES = frozenset(get_args(SenderRole))
_DEFAULT_ROLE = {"request": "agent", "response": "assistant"}
"""The sender a message's HEADER f stands for when f names no LLMCP role (a model's name)."""
P = TypeVar("P", RequestPacket, ResponsePacket)


def request_to_llmx(packet: RequestPacket) -> Message:
    """A request as HEADER + CTX + X_DOC... + REQ."""
    data = packet.to_json_dict()
    documents = data["context"]["documents"]
    blocks = [
        _header(data, MODEL),
        Block("CTX", {"p": PROJECT}),
        *(document_block(document) for document in documents),
        Block("REQ", _objective(data)),
    ]
    return Message(tuple(blocks))


def llmx_to_request(message: Message) -> RequestPacket:
    """The request `request_to_llmx` made (or one written in its form)."""
    header = _header_fields(message)
    req = _one(message, "REQ")
    documents = [_document(block) for block in message.of_type(DOC_BLOCK)]
    data: dict[str, Any] = {
        **_envelope(header, "request"),
        "input": _input(req),
        "context": {"documents": documents},
        "output": {"format": req.get("x_out", "json")},
    }
    return _validated(RequestPacket, data, "request")


def response_to_llmx(packet: ResponsePacket) -> Message:
    """A response as HEADER + RES + one ACT per tool call."""
    data = packet.to_json_dict()
    header = _header(data, "agent")
    header.fields["x_re"] = data["in_reply_to"]["request_id"]
    assistant = data["assistant"]
    answer: Fields = {"o": "ACK"}
    if "markdown" in assistant:
        answer["msg"] = assistant["markdown"]
    for key, name in (("title", "x_title"), ("render", "x_render")):
        if key in assistant:
            answer[name] = from_json(assistant[key])
    if assistant.get("citations"):
        answer["x_cites"] = from_json(assistant["citations"])
    acts = [tool_call_to_act(call, f"T{index}") for index, call in enumerate(packet.tool_calls, 1)]
    return Message((header, Block("RES", answer), *acts))


def llmx_to_response(message: Message, request: RequestPacket | None = None) -> ResponsePacket:
    """The response a message states; envelope fields it lacks come from `request`."""
    header = _header_fields(message)
    res = _one(message, "RES")
    if res["o"] == "NACK":
        raise LlmxError(f"the reply is a NACK: {res.get('msg', '')}", block="RES", field="o")
    envelope = _reply_envelope(header, request)
    assistant: dict[str, Any] = {"citations": to_json(res.get("x_cites", []))}
    if "x_title" in res:
        assistant["title"] = to_json(res["x_title"])
    if "x_render" in res:
        assistant["render"] = to_json(res["x_render"])
    if "msg" in res:
        assistant["markdown"] = res["msg"]
    calls = [act_to_tool_call(block) for block in message.of_type("ACT")]
    data = {**envelope, "assistant": assistant, "tool_calls": calls}
    return _validated(ResponsePacket, data, "response")


def compact_request(
    question: str, documents: list[dict[str, Any]], note: str | None = None
) -> Message:
    """A grounded question in compact mode: `HEADER:{f:user,t:model,s:1}` (no `x_` envelope:
    a small model neither needs it nor should pay its tokens), `CTX:{p:laika,st?:{note}}`,
    one X_DOC per document, and `REQ:{o:<question>,pr:3}`."""
    context: Fields = {"p": PROJECT}
    if note:
        context["st"] = {"note": note}
    return Message(
        (
            Block(HEADER, {"f": "user", "t": MODEL, "s": 1}),
            Block("CTX", context),
            *(document_block(document) for document in documents),
            Block("REQ", {"o": question, "pr": DEFAULT_PRIORITY}),
        )
    )


ANSWER = "ACK"


def compact_reply(message: Message) -> dict[str, Any]:
    """A model's compact reply as the LLMCP answer JSON (`{assistant:{markdown}, citations,
    tool_calls?}`) that the reply parser validates like any JSON reply: `RES:{o:"ACK",msg}`
    is the answer, each other `RES:{o:<doc id>,msg:<quote>}` a citation in order (the n-th is
    `[n]`), each ACT a tool call. A NACK, or no answer, is refused (`LlmxError`)."""
    results = [block.fields for block in message.of_type("RES")]
    refused = next((res for res in results if res["o"] == "NACK"), None)
    if refused is not None:
        raise LlmxError(f"the reply is a NACK: {refused.get('msg', '')}", block="RES", field="o")
    answer = next((res for res in results if res["o"] == ANSWER), None)
    if answer is None or not isinstance(answer.get("msg"), str):
        raise LlmxError('no answer: the reply needs RES:{o:"ACK",msg:"..."}', block="RES")
    citations = [
        {"doc_id": res["o"], "quote": to_json(res.get("msg", ""))}
        for res in results
        if res is not answer and res["o"] not in (ANSWER, "WARN")
    ]
    data: dict[str, Any] = {"assistant": {"markdown": answer["msg"]}, "citations": citations}
    calls = [act_to_tool_call(block) for block in message.of_type("ACT")]
    if calls:
        data["tool_calls"] = calls
    return data


def tool_call_to_act(call: ToolCall, action_id: str) -> Block:
    """`{name, arguments}` as `ACT:{i,op,tgt:name,args}`."""
    arguments = call.arguments.model_dump(mode="json", by_alias=True)
    fields: Fields = {"i": action_id, "op": operation_of(call.name), "tgt": call.name}
    if arguments:
        fields["args"] = from_json(arguments)
    return Block("ACT", fields)


def act_to_tool_call(block: Block) -> dict[str, Any]:
    """An ACT as a tool call `{name, arguments}` (JSON data); the tool name is `tgt`."""
    act = Act.of(block)
    return {"name": act.tgt, "arguments": to_json(act.args)}


def operation_of(tool: str) -> str:
    """The LLMX operation closest to a tool's effect (from its risk class)."""
    from ..tools.registry import REGISTRY

    if tool == "search":
        return "search"
    entry = REGISTRY.get(tool)
    return _OPS_BY_RISK.get(entry.risk, "edit") if entry else "edit"


@dataclass(frozen=True)
class ToolResult:
    """What a tool run gave: its result (any JSON) or its error, for one action id."""

    action_id: str
    result: Any = None
    error: str | None = None


def tool_result_to_obs(result: ToolResult) -> Block:
    """`OBS:{ai,s:OK,c}` for a result, `OBS:{ai,s:ERR,e}` for an error."""
    if result.error is not None:
        return Block("OBS", {"ai": result.action_id, "s": "ERR", "e": result.error})
    content = from_json(result.result)
    if not isinstance(content, dict):
        content = {"x_json": _json_text(result.result)}
    return Block("OBS", {"ai": result.action_id, "s": "OK", "c": content})


def obs_to_tool_result(block: Block) -> ToolResult:
    obs = Obs.of(block)
    if obs.ai is None:
        raise LlmxError("OBS needs ai:ID to say which action it reports", block="OBS", field="ai")
    if not obs.ok:
        return ToolResult(obs.ai, error=obs.e or "")
    return ToolResult(obs.ai, result=to_json(obs.c or {}))


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _header(data: dict[str, Any], target: str) -> Block:
    return Block(
        HEADER,
        {
            "f": data["sender"]["role"],
            "t": target,
            "s": data["conversation"]["turn"],
            "x_id": data["id"],
            "x_at": data["created_at"],
            "x_conv": data["conversation"]["id"],
        },
    )


def document_block(document: dict[str, Any]) -> Block:
    """A context document as `X_DOC:{id,kind,trust,src?,c}`: its trust stays in sight of the
    model (read back, every document is untrusted whatever the text claims)."""
    content = {key: value for key, value in document["content"].items() if key != "doc_type"}
    fields: Fields = {"id": document["doc_id"], "kind": document["kind"]}
    if "trust" in document:
        fields["trust"] = document["trust"]
    if "source" in document:
        fields["src"] = from_json(document["source"])
    fields["c"] = from_json(content)
    return Block(DOC_BLOCK, fields)


def _document(block: Block) -> dict[str, Any]:
    fields = block.fields
    kind = to_json(fields.get("kind", ""))
    content = to_json(fields.get("c", {}))
    document: dict[str, Any] = {"doc_id": to_json(fields.get("id", "")), "kind": kind}
    document["trust"] = "untrusted"
    if "src" in fields:
        document["source"] = to_json(fields["src"])
    document["content"] = {"doc_type": kind, **(content if isinstance(content, dict) else {})}
    return document


def _objective(data: dict[str, Any]) -> Fields:
    given = data["input"]
    message, task = given.get("user_message"), given.get("task")
    fields: Fields = {"o": message["text"] if message else task["name"], "pr": DEFAULT_PRIORITY}
    if message:
        fields["x_msg"] = message["id"]
    if task:
        fields["x_task"] = task["name"]
        if task.get("args"):
            fields["x_args"] = from_json(task["args"])
    if data["output"]["format"] != "json":
        fields["x_out"] = data["output"]["format"]
    return fields


def _input(req: Fields) -> dict[str, Any]:
    given: dict[str, Any] = {}
    if "x_msg" in req:
        given["user_message"] = {"id": req["x_msg"], "text": req["o"]}
    if "x_task" in req:
        given["task"] = {"name": req["x_task"], "args": to_json(req.get("x_args", {}))}
    if not given:
        given["user_message"] = {"id": "msg_1", "text": req["o"]}
    return given


def _header_fields(message: Message) -> Fields:
    return message.blocks[0].fields if message.blocks else {}


def _one(message: Message, kind: str) -> Fields:
    found = message.of_type(kind)
    if len(found) != 1:
        raise LlmxError(f"expected exactly one {kind} block (got {len(found)})", block=kind)
    return found[0].fields


def _envelope(header: Fields, packet_type: str) -> dict[str, Any]:
    for name in ("x_id", "x_at", "x_conv"):
        if name not in header:
            raise LlmxError(
                f"HEADER lacks {name}, which the LLMCP envelope needs", block=HEADER, field=name
            )
    return {
        "protocol": {"name": PROTOCOL_NAME, "version": PROTOCOL_VERSION},
        "id": header["x_id"],
        "type": packet_type,
        "created_at": header["x_at"],
        "conversation": {"id": header["x_conv"], "turn": header["s"]},
        "sender": {"role": header["f"] if header["f"] in _ROLES else _DEFAULT_ROLE[packet_type]},
    }


def _reply_envelope(header: Fields, request: RequestPacket | None) -> dict[str, Any]:
    if request is not None:
        defaults: dict[str, Value] = {
            "x_id": f"res_{uuid.uuid4()}",
            "x_at": format_timestamp(datetime.now(UTC)),
            "x_conv": request.conversation.id,
            "x_re": request.id,
        }
        if "x_conv" not in header:  # a model's own reply: the turn is the request's
            header = {**header, "s": request.conversation.turn}
        header = {**defaults, **header}
    envelope = _envelope(header, "response")
    if "x_re" not in header:
        raise LlmxError("HEADER lacks x_re, the request answered", block=HEADER, field="x_re")
    envelope["in_reply_to"] = {"request_id": header["x_re"]}
    return envelope


def _validated(model: type[P], data: dict[str, Any], kind: str) -> P:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(str(issue) for issue in issues_from(error, data)[:5])
        raise LlmxError(f"not a valid LLMCP {kind}: {problems}") from None
