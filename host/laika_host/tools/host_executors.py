"""The host executors by tool name, each called the same way: `(arguments, store, options)`.

The executors themselves (`executors`, `app_executors`) keep their own keyword options;
this table only says which option each one takes, so the gate can run any host tool alike.
"""

from __future__ import annotations

from typing import Any

from ..defaults import DEFAULT_COLLECTION
from ..settings.tool import SettingsTool
from ..store import Store
from . import app_executors as app
from . import executors
from .registry import ExecuteOptions, Executor


async def _transform_run(arguments: Any, store: Store, options: ExecuteOptions) -> dict[str, Any]:
    return await executors.transform_run(arguments, store, provider=options.provider)


async def _artifact_share(arguments: Any, store: Store, options: ExecuteOptions) -> dict[str, Any]:
    return await executors.artifact_share(arguments, store, folder=options.export_folder)


async def _artifact_save(arguments: Any, store: Store, options: ExecuteOptions) -> dict[str, Any]:
    collection = options.collection or DEFAULT_COLLECTION
    return await executors.artifact_save(arguments, store, collection=collection)


def _plain(run: Any) -> Executor:
    """An executor that needs no option."""

    async def call(arguments: Any, store: Store, _options: ExecuteOptions) -> dict[str, Any]:
        result: dict[str, Any] = await run(arguments, store)
        return result

    return call


EXECUTORS: dict[str, Executor] = {
    "search": _plain(app.search),
    "artifact.save": _artifact_save,
    "artifact.share": _artifact_share,
    "artifact.open": _plain(executors.artifact_open),
    "integration.invoke": _plain(app.integration_invoke),
    "app.calculate": _plain(app.app_calculate),
    "collection.create": _plain(app.collection_create),
    "collection.add_sources": _plain(app.collection_add_sources),
    "collection.list_sources": _plain(app.collection_list_sources),
    "source.capture": _plain(app.source_capture),
    "source.refresh": _plain(app.source_refresh),
    "transform.list_types": _plain(executors.transform_list_types),
    "transform.run": _transform_run,
}
"""The LLMCP tools the registry says run in the host (a test checks both agree)."""


def _settings(tool: SettingsTool) -> Executor:
    """A settings tool, run for whoever `options.who` names (its history says so)."""

    async def call(arguments: Any, store: Store, options: ExecuteOptions) -> dict[str, Any]:
        return await tool.run(arguments, options.who, store)

    return call


def all_executors() -> dict[str, Executor]:
    """Every host executor: the LLMCP ones, then one per settings tool."""
    from ..settings.catalog import SETTINGS_TOOLS

    return {**EXECUTORS, **{name: _settings(tool) for name, tool in SETTINGS_TOOLS.items()}}
