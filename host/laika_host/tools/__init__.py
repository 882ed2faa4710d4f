"""Trusted local executors of the LLMCP app-level tools (spec 000): what runs once a
proposed tool call has been validated (`protocol.tools`) and allowed (issue #16's Policy
Gate, in front of these)."""
