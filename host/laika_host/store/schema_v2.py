"""Schema v2: previous captures of a source (`source_versions`) and the outcome of a job.

A capture that replaces another archives the old one here with its Markdown, so a refresh
never loses what the user saw; a job records whether its capture was stored or kept out.
"""

SCHEMA_V2 = """
CREATE TABLE source_versions (
    seq INTEGER PRIMARY KEY,
    source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    version INTEGER NOT NULL CHECK (version >= 1),
    title TEXT,
    content_hash TEXT,
    capture_markdown TEXT NOT NULL,
    signals TEXT NOT NULL DEFAULT '[]',
    truncated INTEGER NOT NULL DEFAULT 0,
    provenance_json TEXT NOT NULL DEFAULT '{}',
    captured_at INTEGER,
    replaced_at INTEGER NOT NULL,
    UNIQUE (source_id, version)
);

ALTER TABLE capture_jobs ADD COLUMN outcome TEXT
    CHECK (outcome IN ('new', 'updated', 'unchanged', 'kept'));
ALTER TABLE capture_jobs ADD COLUMN outcome_reason TEXT;
"""
