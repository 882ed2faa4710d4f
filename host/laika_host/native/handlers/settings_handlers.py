"""Handler of `settings.ask`: a setting changed in the user's words (`service.settings`).
The proposal streams as `tool_call` events exactly as in `chat.ask`: a pending one waits for
`tool.decide`, then the reply says what came of it."""

from __future__ import annotations

from typing import Any

from ...service.models import ProviderChoice
from ...service.settings import ask
from ...tools.chat_runner import ChatRunner, offered_tools
from ...tools.registry import ExecuteOptions
from ..transport.router import RequestContext
from .settings_models import SettingsAsk


async def settings_ask(payload: SettingsAsk, ctx: RequestContext) -> dict[str, Any]:
    store = await ctx.session.resources.store()
    runner = ChatRunner(
        store,
        offered_tools(extension=True, family="settings"),
        extension=True,
        emit=lambda event: ctx.emit("tool_call", event),
        options=ExecuteOptions(who="panel"),
    )
    reply = await ask(store, payload.text, provider=ProviderChoice(payload.provider), runner=runner)
    return reply.to_json()
