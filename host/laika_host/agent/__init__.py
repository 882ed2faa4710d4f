"""Grounded chat: packing, prompts, response parsing, citation verification, flows.

The agent layer sits between the stores and a model runtime: it packs sources into an LLMCP
request, builds the prompts, turns the model's untrusted reply into a validated response
(`parse`), checks every citation against the stored text, and runs the chat and transform
flows on top of those pieces.
"""
