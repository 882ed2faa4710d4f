"""What one LLMX message may hold. Every bound is checked as the text is read, so a hostile
message costs time in proportion to the bound, never to what lies beyond it."""

MAX_INPUT_CHARS = 1 << 20
"""1 MiB of text: far above a compact context pack for a small model, far below harm."""
MAX_DEPTH = 64
"""Nesting of objects, arrays and tuples inside one block."""
MAX_BLOCKS = 10_000
"""Blocks in one message, HEADER included."""
MAX_NUMBER_CHARS = 100
"""Characters in one number literal: a 5,000-digit number once stalled a host converting it."""
MAX_STRING_CHARS = MAX_INPUT_CHARS
"""Characters in one string literal (the input bound already caps it)."""
