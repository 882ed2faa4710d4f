"""What a host process holds for the tool calls of its running chats: the gate session
(decisions remembered "for this session"), and the calls that wait for the user (`tool.decide`)
or for the extension (`tool.result`), each an asyncio future keyed by the call's id.

One of each per process: a native host serves one browser, and a CLI command is one session.
The timeouts are the contract's (300 s for an approval, 30 s for a forwarded browser tool);
the environment variables shorten them for tests.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from .gate import CallOutcome, Session
from .registry import ExecuteOptions

APPROVAL_TIMEOUT = 300.0
FORWARD_TIMEOUT = 30.0
APPROVAL_TIMEOUT_ENV = "LAIKA_TOOL_APPROVAL_TIMEOUT"
FORWARD_TIMEOUT_ENV = "LAIKA_TOOL_FORWARD_TIMEOUT"


def approval_timeout() -> float:
    """Seconds a pending call waits for `tool.decide` before it is denied ("no answer")."""
    return _seconds(APPROVAL_TIMEOUT_ENV, APPROVAL_TIMEOUT)


def forward_timeout() -> float:
    """Seconds a forwarded browser tool waits for `tool.result` before it fails."""
    return _seconds(FORWARD_TIMEOUT_ENV, FORWARD_TIMEOUT)


def _seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if 0 < value <= default else default


@dataclass
class PendingApproval:
    """A chat waiting for the user's decision on one call; `running` tells its stream that
    the approved call is about to run."""

    future: asyncio.Future[CallOutcome]
    running: Callable[[], None]
    options: ExecuteOptions | None = None
    """What the approved call runs with: the waiting runner's own options."""
    claimed: bool = False


@dataclass
class Waiting:
    session: Session = field(default_factory=Session)
    approvals: dict[str, PendingApproval] = field(default_factory=dict)
    results: dict[str, asyncio.Future[CallOutcome]] = field(default_factory=dict)

    def expect_approval(
        self,
        call_id: str,
        running: Callable[[], None],
        options: ExecuteOptions | None = None,
    ) -> PendingApproval:
        pending = PendingApproval(asyncio.get_running_loop().create_future(), running, options)
        self.approvals[call_id] = pending
        return pending

    def claim_approval(self, call_id: str) -> PendingApproval | None:
        """The chat waiting for this call's decision, marked as being decided (so it is
        settled once); None when no chat waits, or when it is being decided already."""
        pending = self.approvals.get(call_id)
        if pending is None or pending.claimed:
            return None
        pending.claimed = True
        return pending

    def deciding(self, call_id: str) -> bool:
        """A chat waits for this call and its decision is being applied right now."""
        pending = self.approvals.get(call_id)
        return pending is not None and pending.claimed

    def drop_approval(self, call_id: str) -> None:
        self.approvals.pop(call_id, None)

    def expect_result(self, call_id: str) -> asyncio.Future[CallOutcome]:
        future: asyncio.Future[CallOutcome] = asyncio.get_running_loop().create_future()
        self.results[call_id] = future
        return future

    def claim_result(self, call_id: str) -> asyncio.Future[CallOutcome] | None:
        return self.results.pop(call_id, None)


PROCESS = Waiting()
"""This process's session and waiting calls."""
