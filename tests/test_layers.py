"""The package's layers, read from the source: every import (lazy ones inside functions too)
resolved to the module it names, so that a dependency pointing the wrong way fails here."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from support import REPO

PACKAGE = REPO / "host" / "laika_host"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under `if TYPE_CHECKING:` (imports for annotations only)."""
    found: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def _imported(path: Path) -> set[str]:
    """Every module `path` imports when it runs, absolute; `from X import name` counts
    `X.name` too (the name may be a submodule)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """Module -> the laika_host modules it imports."""
    return {
        _module_name(path): frozenset(m for m in _imported(path) if m.startswith("laika_host"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def violations(importers: str, forbidden: tuple[str, ...]) -> list[str]:
    """`importer -> imported` for each import from a module under `importers` into one under
    any of `forbidden`."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        if _under(module, importers)
        for target in targets
        if any(_under(target, package) for package in forbidden)
    )


def test_the_graph_sees_lazy_and_relative_imports() -> None:
    """The reader itself: a lazy relative import inside a function is found and resolved."""
    graph = import_graph()
    assert "laika_host.render" in graph["laika_host.agent.parse"]
    lazy = graph["laika_host.native.transport.host_main"]  # inside a function, two dots up
    assert "laika_host.native.handlers.routes" in lazy
    assert "laika_host.agent.flows" not in graph["laika_host.cli.ask"]  # for annotations only
    assert len(graph) > 100


def test_protocol_knows_nothing_above_it() -> None:
    above = ("render", "agent", "llm", "store", "capture", "native", "cli", "service", "demo")
    assert violations("laika_host.protocol", tuple(f"laika_host.{p}" for p in above)) == []


def test_transport_knows_no_feature() -> None:
    """Only the two entry points wire the message table into a session."""
    entry_points = {
        "laika_host.native.transport.host_main",
        "laika_host.native.transport.socket_server",
    }
    found = violations("laika_host.native.transport", ("laika_host.native.handlers",))
    assert [line for line in found if line.split(" -> ")[0] not in entry_points] == []


def test_the_command_and_the_handlers_go_through_the_service_layer() -> None:
    """The orchestration lives once, in `service`: its callers never reach past it into the
    flows, the capture worker, the fetcher, the job runner or the provider settings."""
    internals = (
        "laika_host.agent.flows",
        "laika_host.capture.isolated",
        "laika_host.capture.fetch",
        "laika_host.store.worker",
        "laika_host.llm.manage",
        "laika_host.llm.config.select_provider",
    )
    for callers in ("laika_host.cli", "laika_host.native.handlers", "laika_host.tools"):
        assert violations(callers, internals) == []


def test_tool_executors_run_what_the_service_layer_runs() -> None:
    """The LLMCP executors reach transforms and artifacts only through `service`."""
    internals = ("laika_host.transform", "laika_host.agent", "laika_host.llm")
    assert violations("laika_host.tools", internals) == []


def test_the_service_layer_knows_none_of_its_callers() -> None:
    callers = ("laika_host.cli", "laika_host.native", "laika_host.demo", "laika_host.tools")
    assert violations("laika_host.service", callers) == []


def test_the_policy_gate_decides_from_its_inputs_alone() -> None:
    """The gate's decision and the registry it reads touch no store, service, model or
    transport: `decide` is a pure function, and the prompt builder may read the registry."""
    pure = (
        "laika_host.tools.policy",
        "laika_host.tools.policy_rules",
        "laika_host.tools.fields",
        "laika_host.tools.registry",
    )
    forbidden = tuple(
        f"laika_host.{p}" for p in ("store", "service", "llm", "agent", "native", "cli")
    )
    for module in pure:
        assert violations(module, forbidden) == []
