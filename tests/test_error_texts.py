"""What the host tells a native caller is written for the side panel's user, who never typed a
command: no command-line flag (`--format`, `--force`, `--provider offline`, ...) in an error
or a reason the panel shows. The `laika` command's own way out travels as the error's
`cli_hint`, which only the CLI prints.

Two nets. Statically: every string in every module a native handler (or the transport) can
import, directly or through others, that reads as prose and names a flag fails, unless it is
a schema description, a `cli_hint`, or a whole terminal command the user is told to run
(`` `laika capture URL --allow-private-address` ``: the panel cannot do that for them).
Dynamically: the errors a panel reaches by pressing its buttons (CSV of an artifact without a
table, a table it lacks, a setting a type refuses) come back through the real host without
one, and `artifacts.get` says which formats to offer.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from laika_host.demo.pages import PAGES
from laika_host.errors import RefusedError
from laika_host.store.refresh import keep_reason
from laika_host.transform.export import FORMATS

from native_client import Client, HostProcess
from support import REPO, run_laika

PACKAGE = REPO / "host" / "laika_host"
FLAG = re.compile(r"(?<![\w/`-])--[a-z][a-z0-9-]+")
COMMAND = re.compile(r"`(?:laika|/)[^`]*`")
"""A whole command to run in a terminal, in backticks: allowed, flags and all."""
STARTS = ("laika_host.native.handlers", "laika_host.native.transport")
NOT_MESSAGES = {"description", "help", "epilog"}
"""Keywords whose strings document a schema or a command, never reach a user as an error."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported(name: str) -> set[str]:
    """The package's modules `name` imports anywhere in its text (functions included)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    modules: set[str] = set()
    for candidate in found:
        parts = candidate.split(".")
        modules.update(".".join(parts[:n]) for n in range(2, len(parts) + 1))
    return {m for m in modules if m in MODULES}


@cache
def reachable() -> frozenset[str]:
    seen = {name for name in MODULES if name.startswith(STARTS)}
    todo = list(seen)
    while todo:
        for name in imported(todo.pop()):
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return frozenset(seen)


def _exempt(tree: ast.AST) -> set[int]:
    """Nodes whose strings are not messages: docstrings, schema descriptions, CLI hints."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            skip.add(id(body[0].value))
        if isinstance(node, ast.Call):
            hint = isinstance(node.func, ast.Attribute) and node.func.attr == "with_cli_hint"
            route = isinstance(node.func, ast.Name) and node.func.id == "Route"
            documented = [k.value for k in node.keywords if k.arg in NOT_MESSAGES]
            for part in [*node.args] * (hint or route) + documented:
                skip.update(id(inner) for inner in ast.walk(part))
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.endswith(("_FLAG", "DESCRIPTION"))
            for t in node.targets
        ):  # a constant that is a Field's description
            skip.update(id(inner) for inner in ast.walk(node.value))
    return skip


def texts(path: Path) -> Iterator[tuple[int, str]]:
    """Each string of the module as a reader gets it (an f-string whole, `{}` for each
    value), except the exempt ones."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _exempt(tree)
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inside.update(id(part) for part in node.values)
            if id(node) not in skip:
                yield (
                    node.lineno,
                    "".join(
                        part.value if isinstance(part, ast.Constant) else "{}"
                        for part in node.values
                    ),
                )
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and id(node) not in inside
        ):
            yield node.lineno, node.value


def names_a_flag(text: str) -> bool:
    """Prose (it has a space) naming a flag outside a whole terminal command."""
    return " " in text.strip() and bool(FLAG.search(COMMAND.sub("", text)))


def test_the_walk_finds_what_native_callers_reach() -> None:
    found = reachable()
    for name in (
        "laika_host.transform.export",
        "laika_host.service.artifacts",
        "laika_host.store.refresh",
        "laika_host.transform.model_run",
        "laika_host.transform.notes.runtime",
        "laika_host.capture.fetch_guard",
    ):
        assert name in found, name
    assert not any(name.startswith("laika_host.cli") for name in found)


def test_no_text_a_native_caller_can_get_names_a_command_line_flag() -> None:
    wrong = [
        f"{MODULES[name].relative_to(PACKAGE.parent)}:{line}: {text!r}"
        for name in sorted(reachable())
        for line, text in texts(MODULES[name])
        if names_a_flag(text)
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("a brief has no table: use --format md, txt, json or html", True),
        ("x.md exists: pass --force to replace it", True),
        ("run it again, or use --provider offline", True),
        ("save it from the browser or run `laika capture {} --allow-private-address`", False),
        ("--host", False),  # an argument list's element, not a message
        ("a pros-and-cons artifact -- two tables", False),
    ],
)
def test_what_counts_as_naming_a_flag(text: str, flagged: bool) -> None:
    assert names_a_flag(text) is flagged


def test_the_cli_shows_the_hint_and_the_host_does_not() -> None:
    error = RefusedError("x.md exists: choose another file name").with_cli_hint("or pass --force")
    assert str(error) == "x.md exists: choose another file name"
    assert error.cli_hint == "or pass --force"


def test_a_kept_capture_says_why_without_a_flag() -> None:
    from laika_host.capture import capture_html

    short = capture_html("<html><body><article><p>Two words.</p></article></body></html>")
    reason = keep_reason(10_000, [], short)
    assert reason is not None
    assert "kept the saved copy" in reason
    assert not FLAG.search(reason), reason


# --- through the real host ----------------------------------------------------------------


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    process = HostProcess(tmp_path_factory.mktemp("errors"))
    client = Client(process)
    for page in PAGES:
        saved = client.call(
            "sources.save_page", {"url": page.url, "html": page.html, "collection": "Demo"}
        )
        assert saved["ok"], saved
    yield client
    process.kill()


def made(client: Client, kind: str) -> str:
    run = client.call("transform.run", {"collection": "Demo", "type": kind, "provider": "offline"})
    assert run["ok"], run
    return str(run["result"]["artifact"]["id"])


def test_artifacts_get_lists_the_formats_to_offer(host: Client) -> None:
    takeaways = host.call("artifacts.get", {"artifact_id": made(host, "key-takeaways")})["result"]
    assert takeaways["export_formats"] == ["md", "txt", "json", "html"]
    assert takeaways["export_tables"] == []
    timeline = host.call("artifacts.get", {"artifact_id": made(host, "timeline")})["result"]
    assert timeline["export_formats"] == list(FORMATS)
    assert timeline["export_tables"] == ["timeline"]
    for artifact in (takeaways, timeline):  # each offered format exports
        for fmt in artifact["export_formats"]:
            exported = host.call("artifacts.export", {"artifact_id": artifact["id"], "format": fmt})
            assert exported["ok"], (fmt, exported)


def test_the_errors_a_panel_reaches_name_no_flag(host: Client) -> None:
    takeaways = made(host, "key-takeaways")
    timeline = made(host, "timeline")
    replies = [
        host.call("artifacts.export", {"artifact_id": takeaways, "format": "csv"}),
        host.call("artifacts.export", {"artifact_id": timeline, "format": "csv", "table": 2}),
        host.call(
            "transform.run", {"collection": "Demo", "type": "timeline", "config": {"count": "x"}}
        ),
    ]
    for reply in replies:
        assert reply["ok"] is False, reply
        message = reply["error"]["message"]
        assert reply["error"]["code"] == "bad_request", reply
        assert not FLAG.search(message), message
    assert "export it as md, txt, json or html" in replies[0]["error"]["message"]
    assert "its tables are 1 (timeline)" in replies[1]["error"]["message"]


def test_the_cli_keeps_its_flag_hint(tmp_path: Path) -> None:
    env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
    done = run_laika("transform", "run", "timeline", "--config", "count=x", env=env)
    assert done.returncode != 0
    assert "`laika transform list --json` shows each type's settings" in done.stderr, done.stderr
