"""The tool registry: one entry per v1 tool, each tool's arguments checked at the boundary
(every kind of bad argument refused naming the field), the prompt's tool list and
`laika tools list --json` generated from it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from laika_host.agent import prompts
from laika_host.protocol.tools import BROWSER_TOOLS, TOOL_ARGUMENTS
from laika_host.settings.catalog import SETTINGS_TOOLS
from laika_host.tools import registry
from laika_host.tools.catalog import tool_listing
from laika_host.tools.host_executors import EXECUTORS, all_executors
from laika_host.tools.registry import REGISTRY, ToolArgumentsError, UnknownToolError
from tool_cases import DEFAULT_DECISIONS, OUT_OF_RANGE, VALID

from support import run_laika


def test_every_tool_has_exactly_one_entry() -> None:
    """The v1 tools, then the settings family (each a host tool of risk `settings`)."""
    assert registry.family("llmcp") == list(TOOL_ARGUMENTS)
    assert registry.family("settings") == list(SETTINGS_TOOLS)
    assert list(REGISTRY) == [*TOOL_ARGUMENTS, *SETTINGS_TOOLS]
    assert set(VALID) == set(TOOL_ARGUMENTS) == set(DEFAULT_DECISIONS)
    for name, tool in REGISTRY.items():
        assert tool.name == name
        own = TOOL_ARGUMENTS.get(name) or SETTINGS_TOOLS[name].arguments
        assert tool.arguments is own
        assert tool.description
        assert "\n" not in tool.description
        if tool.family == "settings":
            assert (tool.risk, tool.runs_in) == ("settings", "host")


def test_host_tools_have_an_executor_and_browser_tools_run_in_the_extension() -> None:
    host = {name for name, tool in REGISTRY.items() if tool.runs_in == "host"}
    assert set(EXECUTORS) == host - set(SETTINGS_TOOLS)
    assert set(all_executors()) == host
    assert {name for name, tool in REGISTRY.items() if tool.runs_in == "extension"} == BROWSER_TOOLS
    for name in REGISTRY:
        assert (registry.executor(name) is None) == (name in BROWSER_TOOLS)


def test_the_schema_version_is_one() -> None:
    assert registry.SCHEMA_VERSION == 1
    assert tool_listing()["schema_version"] == 1


def _refused(name: str, arguments: Any) -> str:
    with pytest.raises(ToolArgumentsError) as caught:
        registry.validate(name, arguments)
    return str(caught.value)


def _wrong_type(value: Any) -> Any:
    """A JSON value of another type than `value` (an object, or a list for an object)."""
    return [] if isinstance(value, dict) else {}


@pytest.mark.parametrize("name", list(VALID))
def test_valid_arguments_are_accepted(name: str) -> None:
    validated = registry.validate(name, VALID[name])
    assert validated.model_dump(by_alias=True, exclude_none=True) == VALID[name]


@pytest.mark.parametrize("name", list(VALID))
def test_an_unknown_key_is_refused_by_name(name: str) -> None:
    assert "sneakyKey" in _refused(name, {**VALID[name], "sneakyKey": 1})


@pytest.mark.parametrize("name", [n for n in VALID if VALID[n]])
def test_a_wrong_type_is_refused_naming_the_field(name: str) -> None:
    for key, value in VALID[name].items():
        message = _refused(name, {**VALID[name], key: _wrong_type(value)})
        assert message.startswith(f"{name} arguments: {key}"), message


@pytest.mark.parametrize("name", list(VALID))
def test_a_missing_required_field_is_refused_naming_it(name: str) -> None:
    model = TOOL_ARGUMENTS[name]
    required = [f.alias or k for k, f in model.model_fields.items() if f.is_required()]
    for key in required:
        arguments = {k: v for k, v in VALID[name].items() if k != key}
        assert f"{key}: Field required" in _refused(name, arguments)


@pytest.mark.parametrize("name", list(OUT_OF_RANGE))
def test_a_value_out_of_range_is_refused_naming_the_field(name: str) -> None:
    key, value = OUT_OF_RANGE[name]
    assert f"arguments: {key}" in _refused(name, {**VALID[name], key: value})


def test_an_unknown_tool_is_refused_listing_the_tools() -> None:
    with pytest.raises(UnknownToolError) as caught:
        registry.validate("shell.exec", {"command": "rm -rf /"})
    assert "shell.exec" in str(caught.value)
    assert "collection.create" in str(caught.value)


def test_arguments_that_are_not_an_object_are_refused() -> None:
    assert "search arguments" in _refused("search", ["solar"])


@pytest.mark.parametrize(
    "offered", [(), ("app.calculate",), ("search", "browser.click", "collection.add_sources")]
)
def test_the_prompt_lists_exactly_the_registry_entries_offered(offered: tuple[str, ...]) -> None:
    prompt = prompts.system_prompt("web.answer", offered)
    assert prompts.tool_rule(offered) in prompt
    listed = [line[2:].split(":")[0] for line in prompt.splitlines() if line.startswith("- ")]
    listed = [name for name in listed if name in REGISTRY]
    assert listed == list(offered)
    for name in offered:
        tool = REGISTRY[name]
        line = next(line for line in prompt.splitlines() if line.startswith(f"- {name}: "))
        assert line.startswith(f"- {name}: {tool.description} Arguments: ")
        listed_schema = json.loads(line.split("Arguments: ", 1)[1])
        assert set(listed_schema["properties"]) == set(tool.schema().get("properties", {}))
        assert listed_schema["required"] == tool.schema().get("required", [])
    if not offered:
        assert "do not emit tool_calls" in prompt


def test_the_default_prompt_offers_no_tool() -> None:
    assert prompts.AVAILABLE_TOOLS == ()
    assert prompts.prompt_for("web.answer", markdown_mode=False) == prompts.system_prompt(
        "web.answer"
    )


def test_laika_tools_list_json_is_the_registry() -> None:
    done = run_laika("tools", "list", "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed == json.loads(json.dumps(tool_listing()))
    assert [tool["name"] for tool in listed["tools"]] == list(REGISTRY)
    for tool in listed["tools"]:
        entry = REGISTRY[tool["name"]]
        assert tool["risk"] == entry.risk
        assert tool["runs_in"] == entry.runs_in
        assert tool["arguments_schema"] == entry.schema()
        assert tool["family"] == entry.family
        if entry.family == "settings":  # read-only settings tools allow, writes ask
            read_only = SETTINGS_TOOLS[tool["name"]].read_only
            assert tool["default_decision"] == ("allow" if read_only else "ask")
        else:
            assert tool["default_decision"] == DEFAULT_DECISIONS[tool["name"]]


@pytest.mark.parametrize(
    "offered",
    [("app.calculate",), tuple(n for n in TOOL_ARGUMENTS if REGISTRY[n].runs_in == "host")],
)
def test_the_compact_list_gives_each_offered_tool_its_typed_signature(
    offered: tuple[str, ...],
) -> None:
    """A small context window gets `name(arg: type, optional?: a|b)` per tool: the same
    names and arguments as the registry, a quarter of the tokens, the decline rule kept."""
    rule = prompts.tool_rule(prompts.ToolOffer(offered, compact=True))
    assert "Decline" in rule
    lines = [line[2:] for line in rule.splitlines() if line.startswith("- ")]
    assert [line.split("(", 1)[0] for line in lines] == list(offered)
    for name, line in zip(offered, lines, strict=True):
        schema = REGISTRY[name].schema()
        inside = line.split("(", 1)[1].removesuffix(")")
        args = [part.split(": ", 1)[0] for part in inside.split(", ")] if inside else []
        required = set(schema.get("required", []))
        expected = [k if k in required else f"{k}?" for k in schema.get("properties", {})]
        assert args == expected, line
    assert len(rule) * 2 < len(prompts.tool_rule(offered))


class _Offering:
    """The one ToolRunner method `tools_that_fit` reads."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def offered(self) -> list[str]:
        return self.names


@pytest.mark.parametrize(
    ("window", "max_tokens", "form"),
    [
        (32_768, 1_000, "full"),
        (2_048, 300, "compact"),
        (2_048, 512, "none"),  # the sources would keep under SOURCES_FLOOR tokens
        (1_024, 300, "none"),
    ],
)
def test_the_list_offered_shrinks_with_the_context_window(
    window: int, max_tokens: int, form: str
) -> None:
    from laika_host.agent.flows import tools_that_fit
    from laika_host.llm.config import ProviderConfig

    provider = ProviderConfig(
        id="p", kind="openai_compatible", model="m", base_url="http://127.0.0.1:9/v1",
        context_window=window,
    )  # fmt: skip
    host = [n for n in TOOL_ARGUMENTS if REGISTRY[n].runs_in == "host"]
    offer, note = tools_that_fit(provider, max_tokens, _Offering(host))  # type: ignore[arg-type]
    assert (list(offer), offer.compact, note is None) == {
        "full": (host, False, True),
        "compact": (host, True, True),
        "none": ([], False, False),
    }[form]


def test_each_schema_is_made_once_and_handed_out_as_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prompt's tool list is built several times per chat turn, on the event loop:
    pydantic made every schema anew each time (0.15-0.2 CPU-s)."""
    names = registry.family("llmcp")
    registry.prompt_tool_list(names)
    made: list[str] = []
    original = registry.BaseModel.model_json_schema.__func__  # type: ignore[attr-defined]

    def counted(model: Any, *args: Any, **kwargs: Any) -> Any:
        made.append(model.__name__)
        return original(model, *args, **kwargs)

    monkeypatch.setattr(registry.BaseModel, "model_json_schema", classmethod(counted))
    assert registry.prompt_tool_list(names) == registry.prompt_tool_list(names)
    assert registry.prompt_tool_list(names, compact=True)
    assert made == []
    schema = REGISTRY[names[0]].schema()
    schema["properties"] = "changed"
    assert REGISTRY[names[0]].schema()["properties"] != "changed"
