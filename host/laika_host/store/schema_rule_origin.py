"""Schema step for event rules (issue #17 item 5): a tool call may be proposed by one of the
user's rules (origin `rule`). SQLite cannot change a CHECK constraint in place, so the table
is rebuilt with the same columns, rows and indexes."""

SCHEMA_RULE_ORIGIN = """
CREATE TABLE tool_calls_new (
    id TEXT PRIMARY KEY CHECK (id LIKE 'call\\_%' ESCAPE '\\'),
    chat_event_id TEXT REFERENCES chat_events (id) ON DELETE SET NULL,
    collection_id TEXT REFERENCES collections (id) ON DELETE SET NULL,
    tool TEXT NOT NULL,
    arguments_json TEXT NOT NULL CHECK (json_valid(arguments_json)),
    origin TEXT NOT NULL CHECK (origin IN ('user', 'page', 'model', 'rule')),
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
INSERT INTO tool_calls_new SELECT id, chat_event_id, collection_id, tool, arguments_json,
    origin, untrusted_context, decision, rule_id, reason, status, result_json, created_at,
    decided_at, executed_at FROM tool_calls;
DROP TABLE tool_calls;
ALTER TABLE tool_calls_new RENAME TO tool_calls;
CREATE INDEX tool_calls_by_time ON tool_calls (created_at DESC);
CREATE INDEX tool_calls_pending ON tool_calls (created_at) WHERE status = 'pending';
CREATE INDEX tool_calls_by_chat ON tool_calls (chat_event_id);
CREATE INDEX tool_calls_by_collection ON tool_calls (collection_id);
"""
