"""Handlers of the tool message types: the user's decision on a pending call (`tool.decide`),
the extension's answer for a forwarded browser tool (`tool.result`), the registry
(`tools.list`) and the remembered decisions (`tools.rules`, `tools.forget`).

A decision or a result reaches the chat that waits for it in this host process (the calls
wait in `tools.waiting.PROCESS`); a decision on a stored pending call settles it the same
way. What is unknown is `not_found`; what was settled already, or does not wait, `conflict`.
"""

from __future__ import annotations

import json
from typing import Any

from ...tools import chat_runner, gate
from ...tools.catalog import tool_listing
from ...tools.waiting import PROCESS
from ..transport.router import RequestContext
from .tool_models import MAX_TOOL_RESULT, ToolDecide, ToolForget, ToolResult


async def tool_decide(payload: ToolDecide, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    approve = payload.decision == "approve"
    call = await chat_runner.decide_call(store, payload.approval_id, approve, payload.remember)
    return {"call": call}


async def tool_result(payload: ToolResult, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    result = _bounded(payload.result)
    await chat_runner.record_forwarded(
        store, payload.call_id, ok=payload.ok, result=result, error=payload.error
    )
    return {"recorded": True}


def _bounded(result: Any) -> Any:
    """The extension's result, or a preview of it past `MAX_TOOL_RESULT` bytes of JSON."""
    text = json.dumps(result, ensure_ascii=False)
    if len(text.encode("utf-8")) <= MAX_TOOL_RESULT:
        return result
    preview = text.encode("utf-8")[: MAX_TOOL_RESULT // 2].decode("utf-8", "ignore")
    return {"truncated": True, "bytes": len(text.encode("utf-8")), "preview": preview}


async def tools_list(_payload: None, _ctx: RequestContext) -> dict[str, Any]:
    return tool_listing()


async def tools_rules(_payload: None, ctx: RequestContext) -> dict[str, Any]:
    """This process's session rules, then the decisions remembered always (newest first)."""
    store = await ctx.session.resources.store()
    session = [
        {
            "id": rule.id,
            "tool": rule.when.tool or "",
            "decision": rule.decision,
            "scope": "session",
            "created_at": None,
        }
        for rule in PROCESS.session.rules
    ]
    always = [{**rule.to_json(), "scope": "always"} for rule in await gate.list_remembered(store)]
    return {"rules": session + always}


async def tools_forget(payload: ToolForget, ctx: RequestContext) -> dict[str, Any]:
    if PROCESS.session.forget(payload.rule_id):
        return {"forgotten": True}
    store = await ctx.session.resources.store()
    await gate.forget(store, payload.rule_id)  # not_found when there is no such rule
    return {"forgotten": True}
