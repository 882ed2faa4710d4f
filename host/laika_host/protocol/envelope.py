"""The envelope every LLMCP packet carries (spec 000, "Protocol envelope")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ._base import ExactInt, LlmcpModel, NonEmptyStr, Timestamp

PROTOCOL_NAME = "laika.llmcp"
PROTOCOL_VERSION = 1

SenderRole = Literal["user", "agent", "assistant", "tool"]
PacketType = Literal["request", "response"]


class ProtocolInfo(LlmcpModel):
    """Which protocol and version this packet speaks; anything but laika.llmcp v1 is refused."""

    name: Literal["laika.llmcp"]
    version: Annotated[Literal[1], ExactInt]


class Conversation(LlmcpModel):
    """Groups turns; `turn` increases monotonically within one conversation."""

    id: NonEmptyStr
    turn: Annotated[int, Field(ge=1)]


class Sender(LlmcpModel):
    role: SenderRole


class Envelope(LlmcpModel):
    """Fields shared by requests and responses, in spec order."""

    protocol: ProtocolInfo
    id: NonEmptyStr
    type: PacketType
    created_at: Timestamp
    conversation: Conversation
    sender: Sender
