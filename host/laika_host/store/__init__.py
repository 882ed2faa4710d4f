"""The store: one SQLite file (`<data dir>/laika.db`) for everything Laika keeps.

    async with open_store() as store:
        saved = await store.sources.save_capture("Reading", capture)
        hits = await store.search.query("solar panels")

Repositories, one module each: `collections`, `sources`, `jobs` (capture queue), `chat`,
`artifacts`, `runs` (LLM runs), `search` (FTS5), `tool_calls` (the Policy Gate's audit
trail), `tool_rules` (remembered decisions). `_db` holds the connection and the retried
write transactions; `migrations` the numbered schema steps.
"""

from .errors import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    SchemaTooNewError,
    StoreBusyError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreUnavailableError,
)
from .records import (
    Artifact,
    CaptureJob,
    ChatEvent,
    Collection,
    LlmRun,
    SavedSource,
    SearchHit,
    Source,
    SourceDetail,
    SourceVersion,
    SourceVersionDetail,
)
from .store import DB_FILE_NAME, Store, default_db_path, open_store

__all__ = [
    "DB_FILE_NAME",
    "Artifact",
    "CaptureJob",
    "ChatEvent",
    "Collection",
    "ConflictError",
    "InvalidInputError",
    "LlmRun",
    "NotFoundError",
    "SavedSource",
    "SchemaTooNewError",
    "SearchHit",
    "Source",
    "SourceDetail",
    "SourceVersion",
    "SourceVersionDetail",
    "Store",
    "StoreBusyError",
    "StoreCorruptError",
    "StoreError",
    "StoreFullError",
    "StoreUnavailableError",
    "default_db_path",
    "open_store",
]
