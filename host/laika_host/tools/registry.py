"""The tool registry: one entry per LLMCP v1 tool, the single list everything else reads.

An entry holds the tool's argument model (`protocol.tools`), the description the model and
`laika tools list` see, its risk class, and where it runs: `host` tools have an executor
here (over the service layer), `extension` tools are forwarded to the browser extension,
which runs them in the tab. The prompt's tool list, the gate's catalog and the CLI listing
are generated from it, so a tool cannot be offered without being runnable and gated.

Executors are looked up lazily (`executor`): importing the registry loads only the protocol
models, so the prompt builder can read it cheaply.

Two families share it: `llmcp` (the v1 tools a chat's model may propose) and `settings` (the
curated settings tools of `settings.catalog`, proposed by the settings flow, risk `settings`,
run in the host). The settings family joins on first use, so importing this module stays
cheap and no import cycle runs through the settings registry.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationError

from ..errors import RefusedError
from ..protocol.tools import TOOL_ARGUMENTS, TOOLS_SCHEMA_VERSION

if TYPE_CHECKING:
    from ..config.registry import Who
    from ..service.models import ProviderChoice
    from ..store import Store

SCHEMA_VERSION = TOOLS_SCHEMA_VERSION
"""`tools.schema_version`: one per release (spec 000, "Tool schema versioning")."""

Risk = Literal["read", "write", "browser_read", "browser_act", "share", "external", "settings"]
RunsIn = Literal["host", "extension"]
Family = Literal["llmcp", "settings"]


@dataclass(frozen=True)
class ExecuteOptions:
    """What a host executor may need besides its arguments: who answers a transform, where
    `artifact.share` may write files, which collection `artifact.save` files into, and who
    asked for a settings change (named in the registry's history)."""

    provider: ProviderChoice | None = None
    export_folder: Path | None = None
    collection: str | None = None
    who: Who = "model"


Executor = Callable[[Any, "Store", ExecuteOptions], Awaitable[dict[str, Any]]]


@cache
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(by_alias=True)


@dataclass(frozen=True)
class ToolEntry:
    name: str
    arguments: type[BaseModel]
    description: str
    risk: Risk
    runs_in: RunsIn
    family: Family = "llmcp"
    web_text: bool = True
    """Its result (or error) may hold text from the web: a page (every browser tool runs in
    one), a capture, a stored source, an artifact made from them. A turn that reads such a
    result is untrusted from then on. False only for a tool whose result is made of its own
    arguments and fixed data (arithmetic, the transform catalog, a new collection or note
    the model named, the user's settings)."""

    def schema(self) -> dict[str, Any]:
        """The arguments' JSON Schema, camelCase keys as on the wire (a copy of the one
        made on first use: pydantic took 0.15-0.2 CPU-s to make them all, on the event loop,
        several times per chat turn with tools)."""
        return copy.deepcopy(_json_schema(self.arguments))

    def to_json(self, default_decision: str | None = None) -> dict[str, Any]:
        listed: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "risk": self.risk,
            "runs_in": self.runs_in,
            "family": self.family,
        }
        if default_decision is not None:
            listed["default_decision"] = default_decision
        return {**listed, "arguments_schema": self.schema()}


@dataclass(frozen=True)
class _Spec:
    risk: Risk
    description: str | None = None
    runs_in: RunsIn = field(default="host")
    web_text: bool = True


_BROWSER: RunsIn = "extension"
_SPECS: dict[str, _Spec] = {
    "browser.observe_dom": _Spec("browser_read", runs_in=_BROWSER),
    "browser.get_selection_links": _Spec("browser_read", runs_in=_BROWSER),
    "browser.click": _Spec("browser_act", runs_in=_BROWSER),
    "browser.type": _Spec("browser_act", runs_in=_BROWSER),
    "browser.select": _Spec("browser_act", runs_in=_BROWSER),
    "browser.scroll": _Spec("browser_act", runs_in=_BROWSER),
    "browser.open_tab": _Spec("browser_act", "Open an http(s) URL in a new tab.", _BROWSER),
    "browser.navigate": _Spec("browser_act", "Load an http(s) URL in the current tab.", _BROWSER),
    "browser.back": _Spec("browser_act", "Go back in the tab's history.", _BROWSER),
    "browser.forward": _Spec("browser_act", "Go forward in the tab's history.", _BROWSER),
    "browser.refresh": _Spec("browser_act", "Reload the current tab.", _BROWSER),
    "search": _Spec("read", "Search the user's saved sources and artifacts (full text)."),
    "artifact.save": _Spec("write", web_text=False),  # its id, and the model's own title
    "artifact.share": _Spec("share"),
    "artifact.open": _Spec("read"),
    "integration.invoke": _Spec("external"),
    "app.calculate": _Spec("read", web_text=False),
    "collection.create": _Spec("write", web_text=False),  # the model's title and tags
    "collection.add_sources": _Spec("write"),
    "collection.list_sources": _Spec("read"),
    "source.capture": _Spec("write"),
    "source.refresh": _Spec("write"),
    "transform.list_types": _Spec(
        "read", "List the transform types that can be run.", web_text=False
    ),
    "transform.run": _Spec("write"),
}


def _entry(name: str, spec: _Spec) -> ToolEntry:
    arguments = TOOL_ARGUMENTS[name]
    description = spec.description or " ".join((arguments.__doc__ or "").split())
    return ToolEntry(name, arguments, description, spec.risk, spec.runs_in, web_text=spec.web_text)


class _Joined(Mapping[str, ToolEntry]):
    """The v1 tools, in the catalog's order, then the settings tools (joined on first use)."""

    def __init__(self) -> None:
        self._entries: dict[str, ToolEntry] | None = None

    def _all(self) -> dict[str, ToolEntry]:
        if self._entries is None:
            from ..settings.catalog import SETTINGS_TOOLS

            entries = {name: _entry(name, spec) for name, spec in _SPECS.items()}
            for name, tool in SETTINGS_TOOLS.items():
                entries[name] = ToolEntry(  # the user's own settings: no web text
                    name, tool.arguments, tool.description, "settings", "host", "settings", False
                )
            self._entries = entries
        return self._entries

    def __getitem__(self, name: str) -> ToolEntry:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


REGISTRY: Mapping[str, ToolEntry] = _Joined()
"""Every tool: the v1 tools in the catalog's order, then the settings family."""


def family(name: Family) -> list[str]:
    """The names of one family's tools, in the registry's order."""
    return [tool.name for tool in REGISTRY.values() if tool.family == name]


class UnknownToolError(RefusedError):
    """A tool name the registry does not hold."""


class ToolArgumentsError(RefusedError):
    """Arguments that do not match the tool's model; the message names each bad field."""


def entry(name: str) -> ToolEntry:
    found = REGISTRY.get(name)
    if found is None:
        raise UnknownToolError(
            f"unknown tool {name[:100]!r}: the tools are {', '.join(REGISTRY)} (`laika tools list`)"
        )
    return found


def validate(name: str, arguments: Any) -> BaseModel:
    """The call's arguments as the tool's model, or an error naming each bad field."""
    tool = entry(name)
    try:
        return tool.arguments.model_validate({} if arguments is None else arguments)
    except ValidationError as error:
        problems = "; ".join(_problem(item) for item in error.errors()[:5])
        raise ToolArgumentsError(f"{name} arguments: {problems}") from None


def _problem(item: Any) -> str:
    where = ".".join(str(part) for part in item.get("loc", ())) or "arguments"
    return f"{where}: {item.get('msg', 'invalid')}"


def executor(name: str) -> Executor | None:
    """The host executor of `name`; None for tools the extension runs."""
    if entry(name).runs_in != "host":
        return None
    from .host_executors import all_executors

    return all_executors()[name]


def prompt_tool_list(names: Sequence[str], *, compact: bool = False) -> str:
    """The tool list of the system prompt for the tools offered in a turn: one line each,
    the name, what it does, and its arguments' JSON Schema (properties and required).
    `compact` (a small context window): the typed signature only, `name(arg: type, opt?:
    a|b)`, about a quarter of the tokens; the names say what the tools do, and a wrong
    argument comes back to the model as an error naming the field."""
    lines = []
    for name in names:
        tool = entry(name)
        schema = tool.schema()
        if compact:
            lines.append(f"- {name}({_signature(schema)})")
            continue
        brief = {"properties": _plain_properties(schema), "required": schema.get("required", [])}
        lines.append(f"- {name}: {tool.description} Arguments: {json.dumps(brief)}")
    return "\n".join(lines)


def _signature(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    parts = []
    for key, plain in _plain_properties(schema).items():
        kind = "|".join(map(str, plain["enum"])) if "enum" in plain else plain.get("type", "any")
        parts.append(f"{key}{'' if key in required else '?'}: {kind}")
    return ", ".join(parts)


def _plain_properties(schema: dict[str, Any]) -> dict[str, Any]:
    """Each property's type (or enum), without pydantic's titles and null branches."""
    plain: dict[str, Any] = {}
    for key, value in schema.get("properties", {}).items():
        options = [o for o in value.get("anyOf", [value]) if o.get("type") != "null"]
        first = options[0] if options else value
        plain[key] = {k: first[k] for k in ("type", "enum", "const") if k in first} or {
            "type": "object"
        }
    return plain
