"""Schema step for transform runs: an artifact keeps its items, the content it was built from,
its provider, progress and warnings, and who is running it (owner, heartbeat), so a run a
crash left behind is found and resolved, never stuck `running`."""

SCHEMA_ARTIFACT_RUNS = """
ALTER TABLE artifacts ADD COLUMN items_json TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(items_json));
ALTER TABLE artifacts ADD COLUMN sources_json TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(sources_json));
ALTER TABLE artifacts ADD COLUMN provider TEXT;
ALTER TABLE artifacts ADD COLUMN progress_json TEXT NOT NULL DEFAULT '{}'
    CHECK (json_valid(progress_json));
ALTER TABLE artifacts ADD COLUMN warnings_json TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(warnings_json));
ALTER TABLE artifacts ADD COLUMN partial INTEGER NOT NULL DEFAULT 0 CHECK (partial IN (0, 1));
ALTER TABLE artifacts ADD COLUMN owner TEXT;
ALTER TABLE artifacts ADD COLUMN heartbeat_at INTEGER;
ALTER TABLE artifacts ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0
    CHECK (cancel_requested IN (0, 1));
CREATE INDEX artifacts_active ON artifacts (status) WHERE status IN ('pending', 'running');
CREATE INDEX artifacts_by_key ON artifacts (dedupe_key, completed_at DESC);
"""
