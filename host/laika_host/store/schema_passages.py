"""Schema step for passage retrieval (issue #26): each source's Markdown cut into passages
(`store/passages.py`), indexed in FTS5 with the source's title and the passage's heading path.

`scope` holds one token per collection (`c` + the collection id's hex), so a search within a
collection is an FTS AND with that token: SQLite walks the two posting lists together and
scores only the collection's matches, never the whole index.

Triggers queue a source whose Markdown was written (`passage_queue`); the write path indexes
the queue in the same transaction, and a search first indexes whatever is still queued (rows
written by an older Laika, or by this migration for a store that existed before it)."""

SCHEMA_PASSAGES = """
CREATE TABLE passages (
    seq INTEGER PRIMARY KEY,
    source_seq INTEGER NOT NULL REFERENCES sources (seq) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    scope TEXT NOT NULL,
    title TEXT NOT NULL,
    heading TEXT NOT NULL,
    body TEXT NOT NULL,
    start_at INTEGER NOT NULL,
    end_at INTEGER NOT NULL,
    UNIQUE (source_seq, ordinal)
);
CREATE VIRTUAL TABLE passages_fts USING fts5 (
    scope, title, heading, body,
    content = 'passages', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO passages_fts (passages_fts, rank) VALUES ('pgsz', 16000);
INSERT INTO passages_fts (passages_fts, rank) VALUES ('automerge', 8);
CREATE TRIGGER passages_fts_insert AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts (rowid, scope, title, heading, body)
    VALUES (new.seq, new.scope, new.title, new.heading, new.body);
END;
CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts (passages_fts, rowid, scope, title, heading, body)
    VALUES ('delete', old.seq, old.scope, old.title, old.heading, old.body);
END;
CREATE TRIGGER passages_fts_update AFTER UPDATE ON passages BEGIN
    INSERT INTO passages_fts (passages_fts, rowid, scope, title, heading, body)
    VALUES ('delete', old.seq, old.scope, old.title, old.heading, old.body);
    INSERT INTO passages_fts (rowid, scope, title, heading, body)
    VALUES (new.seq, new.scope, new.title, new.heading, new.body);
END;
CREATE TABLE passage_queue (source_seq INTEGER PRIMARY KEY);
CREATE TRIGGER passages_queue_insert AFTER INSERT ON sources
WHEN new.capture_markdown IS NOT NULL BEGIN
    INSERT OR IGNORE INTO passage_queue (source_seq) VALUES (new.seq);
END;
CREATE TRIGGER passages_queue_update AFTER UPDATE OF capture_markdown ON sources BEGIN
    INSERT OR IGNORE INTO passage_queue (source_seq) VALUES (new.seq);
END;
CREATE TRIGGER passages_follow_source AFTER UPDATE OF title, collection_id ON sources BEGIN
    UPDATE passages SET title = new.title, scope = 'c' || substr(new.collection_id, 5)
    WHERE source_seq = new.seq;
END;
CREATE TRIGGER passages_drop_source AFTER DELETE ON sources BEGIN
    DELETE FROM passages WHERE source_seq = old.seq;
    DELETE FROM passage_queue WHERE source_seq = old.seq;
END;
INSERT INTO passage_queue (source_seq)
    SELECT seq FROM sources WHERE capture_markdown IS NOT NULL;
"""
