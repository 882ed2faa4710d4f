"""Every message type this host handles. Add a route here; handlers load on first use."""

from __future__ import annotations

from ..transport.router import Route, Router
from ..transport.session import Watcher

_BUILTINS = "laika_host.native.handlers.builtins"
_MODELS = "laika_host.native.handlers.builtin_models"
_STORE = "laika_host.native.handlers.store_handlers"
_STORE_MODELS = "laika_host.native.handlers.store_models"
_RECORDS = "laika_host.store.records"
_CHAT = "laika_host.native.handlers.chat_handlers"
_CHAT_MODELS = "laika_host.native.handlers.chat_models"
_PROVIDERS = "laika_host.native.handlers.provider_handlers"
_PROVIDER_MODELS = "laika_host.native.handlers.provider_models"
_TOOLS = "laika_host.native.handlers.tool_handlers"
_TOOL_MODELS = "laika_host.native.handlers.tool_models"
_TRANSFORM = "laika_host.native.handlers.transform_handlers"
_TRANSFORM_MODELS = "laika_host.native.handlers.transform_models"
_CONFIG = "laika_host.native.handlers.config_handlers"
_CONFIG_MODELS = "laika_host.native.handlers.config_models"
_SETTINGS = "laika_host.native.handlers.settings_handlers"
_SETTINGS_MODELS = "laika_host.native.handlers.settings_models"

ROUTES = (
    Route(
        "host.ping",
        f"{_BUILTINS}:ping",
        "Liveness check: version, protocol versions and the message types handled.",
        result=f"{_MODELS}:PingResult",
        control=True,
    ),
    Route(
        "host.info",
        f"{_BUILTINS}:info",
        "Diagnostics: interpreter, transport, caller, data dir, log file, limits, types.",
        result=f"{_MODELS}:InfoResult",
        control=True,
    ),
    Route(
        "host.cancel",
        f"{_BUILTINS}:cancel",
        "Cancel an in-flight request; it then replies with error code `cancelled`.",
        payload=f"{_MODELS}:CancelPayload",
        result=f"{_MODELS}:CancelResult",
        control=True,
    ),
    Route(
        "host.echo",
        f"{_BUILTINS}:echo",
        "Diagnostics and throughput: return `data` `repeat` times (at most 16 MiB), "
        "optionally after `delay_ms` or as `delta` events.",
        payload=f"{_MODELS}:EchoPayload",
        result=f"{_MODELS}:EchoResult",
        events=("delta",),
    ),
    Route(
        "host.log",
        f"{_BUILTINS}:log_message",
        "Write an extension diagnostic line to the host log file.",
        payload=f"{_MODELS}:LogPayload",
        result=f"{_MODELS}:LogResult",
    ),
    Route(
        "collections.list",
        f"{_STORE}:collections_list",
        "All collections with their source counts, most recently changed first.",
        result=f"{_STORE_MODELS}:CollectionListResult",
    ),
    Route(
        "collections.create",
        f"{_STORE}:collections_create",
        "Create a collection; `conflict` if the title (ignoring case) is taken.",
        payload=f"{_STORE_MODELS}:CollectionCreate",
        result=f"{_RECORDS}:Collection",
    ),
    Route(
        "collections.rename",
        f"{_STORE}:collections_rename",
        "Rename a collection (given by title or id).",
        payload=f"{_STORE_MODELS}:CollectionRename",
        result=f"{_RECORDS}:Collection",
    ),
    Route(
        "collections.delete",
        f"{_STORE}:collections_delete",
        "Delete a collection with its sources, jobs, chat and artifacts (LLM runs stay).",
        payload=f"{_STORE_MODELS}:CollectionTarget",
        result=f"{_STORE_MODELS}:CollectionDeleted",
    ),
    Route(
        "sources.list",
        f"{_STORE}:sources_list",
        "Sources (without bodies), newest first, optionally of one collection.",
        payload=f"{_STORE_MODELS}:SourceList",
        result=f"{_STORE_MODELS}:SourceListResult",
    ),
    Route(
        "sources.get",
        f"{_STORE}:sources_get",
        "One source with its Markdown, summary, links, media and provenance, and its reader "
        "view as safe HTML (`html`) with an optional quote (`highlight`) marked.",
        payload=f"{_STORE_MODELS}:SourceGet",
        result=f"{_STORE_MODELS}:SourceView",
    ),
    Route(
        "sources.lookup",
        f"{_STORE}:sources_lookup",
        "The sources saved under a URL (normalized as the store does), in every collection.",
        payload=f"{_STORE_MODELS}:SourceLookup",
        result=f"{_STORE_MODELS}:SourceLookupResult",
    ),
    Route(
        "sources.versions",
        f"{_STORE}:sources_versions",
        "Every capture of a source, oldest first, the current one last (without Markdown).",
        payload=f"{_STORE_MODELS}:SourceTarget",
        result=f"{_STORE_MODELS}:SourceVersionsResult",
    ),
    Route(
        "sources.version",
        f"{_STORE}:sources_version",
        "One capture of a source by version number, with its Markdown (replaced ones too).",
        payload=f"{_STORE_MODELS}:SourceVersionTarget",
        result=f"{_RECORDS}:SourceVersionDetail",
    ),
    Route(
        "sources.delete",
        f"{_STORE}:sources_delete",
        "Delete one source (its capture jobs go with it).",
        payload=f"{_STORE_MODELS}:SourceTarget",
        result=f"{_STORE_MODELS}:SourceDeleted",
    ),
    Route(
        "sources.save_page",
        f"{_STORE}:sources_save_page",
        "Save the page the user sees (its DOM, or only the selection): capture and store it; "
        "the same URL again updates the source, leaves it unchanged, or keeps the saved copy "
        "when the new one has much less text or a new login wall (`kept`, with a `reason`).",
        payload=f"{_STORE_MODELS}:SavePage",
        result=f"{_RECORDS}:SavedSource",
        events=("progress",),
    ),
    Route(
        "sources.add_url",
        f"{_STORE}:sources_add_url",
        "Add a URL for the host to fetch and capture later (queues a capture job).",
        payload=f"{_STORE_MODELS}:AddUrl",
        result=f"{_STORE_MODELS}:AddUrlResult",
    ),
    Route(
        "sources.add_note",
        f"{_STORE}:sources_add_note",
        "Add a note the user typed as a source (plain text: shown as typed, never as markup).",
        payload=f"{_STORE_MODELS}:AddNote",
        result=f"{_RECORDS}:SavedSource",
    ),
    Route(
        "search.query",
        f"{_STORE}:search_query",
        "Full-text search (bm25) over sources and artifacts, with snippets.",
        payload=f"{_STORE_MODELS}:SearchQuery",
        result=f"{_STORE_MODELS}:SearchResult",
    ),
    Route(
        "jobs.status",
        f"{_STORE}:jobs_status",
        "One capture job: status, attempts, last error, times.",
        payload=f"{_STORE_MODELS}:JobTarget",
        result=f"{_RECORDS}:CaptureJob",
    ),
    Route(
        "jobs.list",
        f"{_STORE}:jobs_list",
        "Recent capture jobs and the count per status.",
        result=f"{_STORE_MODELS}:JobListResult",
    ),
    Route(
        "jobs.run",
        f"{_STORE}:jobs_run",
        "Run the due capture jobs now, with a `progress` event as each starts and finishes.",
        payload=f"{_STORE_MODELS}:JobsRun",
        result=f"{_STORE_MODELS}:JobsRunResult",
        events=("progress",),
    ),
    Route(
        "chat.ask",
        f"{_CHAT}:chat_ask",
        "Ask a question over a collection: streamed `delta` events, then the answer with "
        "every citation verified against the stored text (or flagged).",
        payload=f"{_CHAT_MODELS}:ChatAsk",
        result=f"{_CHAT_MODELS}:AnswerResult",
        events=("delta", "tool_call"),
    ),
    Route(
        "chat.history",
        f"{_CHAT}:chat_history",
        "A collection's chat events, oldest first.",
        payload=f"{_CHAT_MODELS}:ChatHistory",
        result=f"{_CHAT_MODELS}:ChatHistoryResult",
    ),
    Route(
        "page.summarize",
        f"{_CHAT}:page_summarize",
        "Store the observed page (or selection) and summarize it with verified citations; "
        "streamed `delta` events, then the answer.",
        payload=f"{_CHAT_MODELS}:PageSummarize",
        result=f"{_CHAT_MODELS}:AnswerResult",
        events=("delta", "tool_call"),
    ),
    Route(
        "transform.list_types",
        f"{_TRANSFORM}:transform_list_types",
        "The transform types with their settings, as `laika transform list --json`.",
        result=f"{_TRANSFORM_MODELS}:TransformTypes",
    ),
    Route(
        "transform.run",
        f"{_TRANSFORM}:transform_run",
        "Make (or reuse, or join) the artifact of a type over a collection: `progress` and "
        "`item` events as it is made, every item's citations verified or flagged; "
        "`host.cancel` ends it `cancelled` with the items so far.",
        payload=f"{_TRANSFORM_MODELS}:TransformRun",
        result=f"{_TRANSFORM_MODELS}:TransformRunResult",
        events=("progress", "item"),
    ),
    Route(
        "artifacts.list",
        f"{_TRANSFORM}:artifacts_list",
        "Artifacts (summaries: counts, no content), newest first, optionally of one collection.",
        payload=f"{_TRANSFORM_MODELS}:ArtifactList",
        result=f"{_TRANSFORM_MODELS}:ArtifactListResult",
    ),
    Route(
        "artifacts.get",
        f"{_TRANSFORM}:artifacts_get",
        "One artifact with its items, Markdown, safe HTML (`html`) and citations.",
        payload=f"{_TRANSFORM_MODELS}:ArtifactTarget",
        result=f"{_TRANSFORM_MODELS}:ArtifactPage",
    ),
    Route(
        "artifacts.export",
        f"{_TRANSFORM}:artifacts_export",
        "An artifact as md, txt, json, csv or html content with a safe file name; the host "
        "writes no file.",
        payload=f"{_TRANSFORM_MODELS}:ArtifactExport",
        result=f"{_TRANSFORM_MODELS}:ArtifactExported",
    ),
    Route(
        "artifacts.delete",
        f"{_TRANSFORM}:artifacts_delete",
        "Delete an artifact (one still being made is cancelled first).",
        payload=f"{_TRANSFORM_MODELS}:ArtifactTarget",
        result=f"{_TRANSFORM_MODELS}:ArtifactDeleted",
    ),
    Route(
        "models.list",
        f"{_PROVIDERS}:models_list",
        "Configured model providers (key variable names and whether they are set, never keys) "
        "and the default; no network.",
        result=f"{_PROVIDER_MODELS}:ProviderList",
    ),
    Route(
        "models.add",
        f"{_PROVIDERS}:models_add",
        "Add or replace a provider; its key stays in the environment variable `key_env`.",
        payload=f"{_PROVIDER_MODELS}:ProviderAdd",
        result=f"{_PROVIDER_MODELS}:ProviderSaved",
    ),
    Route(
        "models.remove",
        f"{_PROVIDERS}:models_remove",
        "Remove a configured provider.",
        payload=f"{_PROVIDER_MODELS}:ProviderTarget",
        result=f"{_PROVIDER_MODELS}:ProviderRemoved",
    ),
    Route(
        "models.test",
        f"{_PROVIDERS}:models_test",
        "Whether a provider answers: one request for its model list, at most 3 s.",
        payload=f"{_PROVIDER_MODELS}:ProviderTarget",
        result=f"{_PROVIDER_MODELS}:ProviderTested",
    ),
    Route(
        "models.set_default",
        f"{_PROVIDERS}:models_set_default",
        "The provider used when a request names none: a configured id, or `offline`.",
        payload=f"{_PROVIDER_MODELS}:DefaultTarget",
        result=f"{_PROVIDER_MODELS}:DefaultSet",
    ),
    Route(
        "tool.decide",
        f"{_TOOLS}:tool_decide",
        "Approve or deny a pending tool call (its `approval_id`), optionally remembered.",
        payload=f"{_TOOL_MODELS}:ToolDecide",
        result=f"{_TOOL_MODELS}:ToolDecided",
    ),
    Route(
        "tool.result",
        f"{_TOOLS}:tool_result",
        "The extension's answer for a forwarded browser tool a chat waits for.",
        payload=f"{_TOOL_MODELS}:ToolResult",
        result=f"{_TOOL_MODELS}:ToolResultRecorded",
    ),
    Route(
        "tools.list",
        f"{_TOOLS}:tools_list",
        "The tool registry: each tool with its risk, where it runs and its gate default.",
        result=f"{_TOOL_MODELS}:ToolList",
    ),
    Route(
        "tools.rules",
        f"{_TOOLS}:tools_rules",
        "The remembered decisions: this session's, then those remembered always.",
        result=f"{_TOOL_MODELS}:ToolRules",
    ),
    Route(
        "tools.forget",
        f"{_TOOLS}:tools_forget",
        "Revoke a remembered decision.",
        payload=f"{_TOOL_MODELS}:ToolForget",
        result=f"{_TOOL_MODELS}:ToolForgotten",
    ),
    Route(
        "settings.ask",
        f"{_SETTINGS}:settings_ask",
        "Change a setting in the user's words: one curated settings tool is chosen (by the "
        "model, or offline by a matcher) and proposed through the Policy Gate, streamed as "
        "`tool_call` events as in `chat.ask`; a request no tool serves is declined with the "
        "list of what can be changed.",
        payload=f"{_SETTINGS_MODELS}:SettingsAsk",
        result=f"{_SETTINGS_MODELS}:SettingsReplyResult",
        events=("tool_call",),
    ),
    Route(
        "config.get",
        f"{_CONFIG}:config_get",
        "A setting of the registry (or all of them) and the registry's version.",
        payload=f"{_CONFIG_MODELS}:ConfigGet",
        result=f"{_CONFIG_MODELS}:ConfigValue",
    ),
    Route(
        "config.set",
        f"{_CONFIG}:config_set",
        "Set one setting (one commit of the registry's history); keys are refused.",
        payload=f"{_CONFIG_MODELS}:ConfigSet",
        result=f"{_CONFIG_MODELS}:ConfigChange",
    ),
    Route(
        "config.history",
        f"{_CONFIG}:config_history",
        "The registry's commits, newest first; with `path`, those that changed it.",
        payload=f"{_CONFIG_MODELS}:ConfigHistory",
        result=f"{_CONFIG_MODELS}:ConfigCommits",
    ),
    Route(
        "config.revert",
        f"{_CONFIG}:config_revert",
        "Undo one commit's change with a new commit; `conflict` if a later one touched it.",
        payload=f"{_CONFIG_MODELS}:ConfigRevert",
        result=f"{_CONFIG_MODELS}:ConfigChange",
    ),
)


def default_router() -> Router:
    return Router(ROUTES)


def default_watchers() -> tuple[Watcher, ...]:
    """What every session runs beside its requests, to send host events (`id` null)."""
    from .config_watch import watch_config

    return (watch_config,)
