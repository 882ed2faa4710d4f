"""Schema step for the Policy Gate: `tool_calls` keeps every proposal with the rule that
decided it and what ran (arguments and results redacted and bounded before they are written);
`tool_rules` keeps the decisions a user asked to remember always (session ones live in the
process that asked)."""

SCHEMA_TOOL_CALLS = """
CREATE TABLE tool_calls (
    id TEXT PRIMARY KEY CHECK (id LIKE 'call\\_%' ESCAPE '\\'),
    chat_event_id TEXT REFERENCES chat_events (id) ON DELETE SET NULL,
    collection_id TEXT REFERENCES collections (id) ON DELETE SET NULL,
    tool TEXT NOT NULL,
    arguments_json TEXT NOT NULL CHECK (json_valid(arguments_json)),
    origin TEXT NOT NULL CHECK (origin IN ('user', 'page', 'model')),
    untrusted_context INTEGER NOT NULL CHECK (untrusted_context IN (0, 1)),
    decision TEXT NOT NULL CHECK (decision IN ('allow', 'ask', 'deny')),
    rule_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    status TEXT NOT NULL
        CHECK (status IN ('pending', 'approved', 'denied', 'executed', 'failed')),
    result_json TEXT CHECK (result_json IS NULL OR json_valid(result_json)),
    created_at INTEGER NOT NULL,
    decided_at INTEGER,
    executed_at INTEGER
);
CREATE INDEX tool_calls_by_time ON tool_calls (created_at DESC);
CREATE INDEX tool_calls_pending ON tool_calls (created_at) WHERE status = 'pending';
CREATE INDEX tool_calls_by_chat ON tool_calls (chat_event_id);
CREATE INDEX tool_calls_by_collection ON tool_calls (collection_id);
CREATE TABLE tool_rules (
    id TEXT PRIMARY KEY CHECK (id LIKE 'rule\\_%' ESCAPE '\\'),
    tool TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
    created_at INTEGER NOT NULL
);
"""
