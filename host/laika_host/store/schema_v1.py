"""Schema v1 as SQL (applied by migration 001). Ids are typed prefixes + UUID; times epoch ms.

`sources` and `artifacts` carry an INTEGER PRIMARY KEY (`seq`) besides their text id: the
FTS5 indexes use it as their external-content rowid, and an aliased rowid survives VACUUM.
"""

SCHEMA_V1 = r"""
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE collections (
    id TEXT PRIMARY KEY CHECK (id LIKE 'col\_%' ESCAPE '\'),
    title TEXT NOT NULL CHECK (length(trim(title)) > 0),
    tags_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags_json)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX collections_by_title ON collections (title COLLATE NOCASE);
CREATE INDEX collections_by_time ON collections (updated_at DESC);

CREATE TABLE sources (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE CHECK (id LIKE 'src\_%' ESCAPE '\'),
    collection_id TEXT NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('url', 'note', 'image')),
    url TEXT,
    normalized_url TEXT,
    title TEXT,
    provenance_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(provenance_json)),
    capture_status TEXT NOT NULL CHECK (capture_status IN ('pending', 'captured', 'failed')),
    capture_version INTEGER NOT NULL DEFAULT 1 CHECK (capture_version >= 1),
    content_hash TEXT,
    capture_error TEXT,
    capture_summary TEXT,
    capture_markdown TEXT,
    capture_text TEXT,
    truncated INTEGER NOT NULL DEFAULT 0 CHECK (truncated IN (0, 1)),
    extracted_links_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(extracted_links_json)),
    media_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(media_json)),
    signals TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(signals)),
    byline TEXT,
    published TEXT,
    added_at INTEGER NOT NULL,
    captured_at INTEGER,
    updated_at INTEGER NOT NULL,
    CHECK (kind != 'url' OR (url IS NOT NULL AND normalized_url IS NOT NULL)),
    CHECK (kind != 'note' OR capture_markdown IS NOT NULL),
    CHECK (capture_status != 'captured'
           OR (capture_markdown IS NOT NULL AND capture_text IS NOT NULL
               AND content_hash IS NOT NULL))
);
CREATE UNIQUE INDEX sources_one_per_url ON sources (collection_id, normalized_url)
    WHERE kind = 'url';
CREATE INDEX sources_by_time ON sources (collection_id, added_at DESC);

CREATE VIRTUAL TABLE sources_fts USING fts5 (
    title, capture_text,
    content = 'sources', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
-- large sources: bigger FTS leaves and fewer, larger merges keep insert p95 low
INSERT INTO sources_fts (sources_fts, rank) VALUES ('pgsz', 16000);
INSERT INTO sources_fts (sources_fts, rank) VALUES ('automerge', 8);
CREATE TRIGGER sources_fts_insert AFTER INSERT ON sources BEGIN
    INSERT INTO sources_fts (rowid, title, capture_text)
    VALUES (new.seq, new.title, new.capture_text);
END;
CREATE TRIGGER sources_fts_delete AFTER DELETE ON sources BEGIN
    INSERT INTO sources_fts (sources_fts, rowid, title, capture_text)
    VALUES ('delete', old.seq, old.title, old.capture_text);
END;
CREATE TRIGGER sources_fts_update AFTER UPDATE OF title, capture_text ON sources BEGIN
    INSERT INTO sources_fts (sources_fts, rowid, title, capture_text)
    VALUES ('delete', old.seq, old.title, old.capture_text);
    INSERT INTO sources_fts (rowid, title, capture_text)
    VALUES (new.seq, new.title, new.capture_text);
END;

CREATE TABLE capture_jobs (
    id TEXT PRIMARY KEY CHECK (id LIKE 'job\_%' ESCAPE '\'),
    source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    collection_id TEXT NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    status TEXT NOT NULL
        CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    attempt_count INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    last_error TEXT,
    dedupe_key TEXT NOT NULL,
    run_after INTEGER NOT NULL,
    claimed_by TEXT,
    lease_until INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER
);
CREATE UNIQUE INDEX capture_jobs_one_active_per_source ON capture_jobs (source_id)
    WHERE status IN ('queued', 'running');
CREATE UNIQUE INDEX capture_jobs_one_active_per_key ON capture_jobs (dedupe_key)
    WHERE status IN ('queued', 'running');
CREATE INDEX capture_jobs_ready ON capture_jobs (status, run_after);
CREATE INDEX capture_jobs_by_time ON capture_jobs (collection_id, created_at DESC);

CREATE TABLE chat_events (
    id TEXT PRIMARY KEY CHECK (id LIKE 'chat\_%' ESCAPE '\'),
    collection_id TEXT NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    markdown TEXT NOT NULL,
    citations_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(citations_json)),
    tool_calls_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tool_calls_json)),
    tool_results_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tool_results_json)),
    model_json TEXT CHECK (model_json IS NULL OR json_valid(model_json)),
    created_at INTEGER NOT NULL
);
CREATE INDEX chat_events_by_time ON chat_events (collection_id, created_at);

CREATE TABLE artifacts (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE CHECK (id LIKE 'art\_%' ESCAPE '\'),
    collection_id TEXT NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    type TEXT NOT NULL CHECK (length(type) > 0),
    title TEXT NOT NULL,
    dedupe_key TEXT NOT NULL,
    status TEXT NOT NULL
        CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
    error TEXT,
    content_markdown TEXT,
    source_ids_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(source_ids_json)),
    citations_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(citations_json)),
    config_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(config_json)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    completed_at INTEGER
);
CREATE UNIQUE INDEX artifacts_one_active_per_key ON artifacts (dedupe_key)
    WHERE status IN ('pending', 'running');
CREATE INDEX artifacts_by_time ON artifacts (collection_id, created_at DESC);

CREATE VIRTUAL TABLE artifacts_fts USING fts5 (
    title, content_markdown,
    content = 'artifacts', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO artifacts_fts (artifacts_fts, rank) VALUES ('pgsz', 16000);
INSERT INTO artifacts_fts (artifacts_fts, rank) VALUES ('automerge', 8);
CREATE TRIGGER artifacts_fts_insert AFTER INSERT ON artifacts BEGIN
    INSERT INTO artifacts_fts (rowid, title, content_markdown)
    VALUES (new.seq, new.title, new.content_markdown);
END;
CREATE TRIGGER artifacts_fts_delete AFTER DELETE ON artifacts BEGIN
    INSERT INTO artifacts_fts (artifacts_fts, rowid, title, content_markdown)
    VALUES ('delete', old.seq, old.title, old.content_markdown);
END;
CREATE TRIGGER artifacts_fts_update AFTER UPDATE OF title, content_markdown ON artifacts BEGIN
    INSERT INTO artifacts_fts (artifacts_fts, rowid, title, content_markdown)
    VALUES ('delete', old.seq, old.title, old.content_markdown);
    INSERT INTO artifacts_fts (rowid, title, content_markdown)
    VALUES (new.seq, new.title, new.content_markdown);
END;

CREATE TABLE llm_runs (
    id TEXT PRIMARY KEY CHECK (id LIKE 'run\_%' ESCAPE '\'),
    kind TEXT NOT NULL,
    provider_id TEXT,
    model_id TEXT,
    collection_id TEXT REFERENCES collections (id) ON DELETE SET NULL,
    source_id TEXT REFERENCES sources (id) ON DELETE SET NULL,
    artifact_id TEXT REFERENCES artifacts (id) ON DELETE SET NULL,
    chat_event_id TEXT REFERENCES chat_events (id) ON DELETE SET NULL,
    status TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'partial', 'error')),
    input_tokens INTEGER,
    output_tokens INTEGER,
    total_tokens INTEGER,
    cost_usd REAL,
    duration_ms INTEGER,
    request_redacted_json TEXT CHECK (request_redacted_json IS NULL
                                      OR json_valid(request_redacted_json)),
    response_redacted_json TEXT CHECK (response_redacted_json IS NULL
                                       OR json_valid(response_redacted_json)),
    error TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX llm_runs_by_time ON llm_runs (created_at DESC);
CREATE INDEX llm_runs_by_collection ON llm_runs (collection_id, created_at DESC);
CREATE INDEX llm_runs_by_source ON llm_runs (source_id);
CREATE INDEX llm_runs_by_artifact ON llm_runs (artifact_id);
CREATE INDEX llm_runs_by_chat ON llm_runs (chat_event_id);
CREATE INDEX capture_jobs_by_source ON capture_jobs (source_id);
"""
