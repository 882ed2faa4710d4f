"""Each default is defined once (`laika_host.defaults`, provider kinds in `llm.config`): read
from the package source, so that a literal copy in a CLI option, a payload model or a
service function fails here instead of drifting from the others."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from laika_host.llm.config import PROVIDER_KINDS

from support import REPO

PACKAGE = REPO / "host" / "laika_host"
DEFAULTS = PACKAGE / "defaults.py"
USER_FACING = ("cli", "native/handlers", "service")
"""Where user input meets a default: these take every default and bound from a name."""
DEFAULTED = {"collection", "max_tokens", "limit", "max_chars", "max_jobs"}
"""Parameters, payload fields and CLI options whose default or bound is a shared default."""


def _sources(*under: str) -> Iterator[Path]:
    roots = [PACKAGE / part for part in under] if under else [PACKAGE]
    for root in roots:
        yield from sorted(root.rglob("*.py"))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}"


def test_the_default_collection_is_written_once() -> None:
    found = [
        str(path.relative_to(PACKAGE))
        for path in _sources()
        for token in tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline)
        if token.type == tokenize.STRING and '"Inbox"' in token.string
    ]
    assert found == ["defaults.py"]


def _literals(node: ast.AST | None) -> list[ast.Constant]:
    """The str and number constants anywhere in `node`: None and booleans are no default,
    and 0 and 1 are the natural bounds of a count, not a shared default."""
    if node is None:
        return []
    return [
        child
        for child in ast.walk(node)
        if isinstance(child, ast.Constant)
        and isinstance(child.value, (str, int, float))
        and not isinstance(child.value, bool)
        and child.value not in (0, 1)
    ]


def _option_name(call: ast.Call) -> str | None:
    """`max_tokens` for `click.option("--max-tokens", ...)`; None for any other call."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "option" and call.args):
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value.lstrip("-").replace("-", "_")
    return None


def _given(value: ast.expr | None) -> list[ast.Constant]:
    """The literals a field's value gives as its default or bounds: a `Field(...)`'s
    `default` and `ge`/`le`/`gt`/`lt` (not its description), else the value itself."""
    if isinstance(value, ast.Call):
        kept = {"default", "ge", "le", "gt", "lt"}
        return [c for kw in value.keywords if kw.arg in kept for c in _literals(kw.value)]
    return _literals(value)


def _bounds(annotation: ast.expr) -> list[ast.Constant]:
    """The numbers in an annotation (`Annotated[int, Field(ge=16, le=...)]`)."""
    return [c for c in _literals(annotation) if not isinstance(c.value, str)]


def literal_defaults(tree: ast.AST) -> list[ast.AST]:
    """Nodes that give a DEFAULTED name a literal default or bound: a function parameter's
    default, a class field's bounds (`Field(ge=16, le=...)`) or default, a click option's
    `default` or `type` (`IntRange(16, ...)`)."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs = [
                *zip(
                    positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
                ),
                *zip(args.kwonlyargs, args.kw_defaults, strict=True),
            ]
            found += [arg for arg, default in pairs if arg.arg in DEFAULTED and _literals(default)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id in DEFAULTED and (_bounds(node.annotation) or _given(node.value)):
                found.append(node)
        elif isinstance(node, ast.Call) and _option_name(node) in DEFAULTED:
            given_ = [kw.value for kw in node.keywords if kw.arg in ("default", "type")]
            if any(_literals(value) for value in given_):
                found.append(node)
    return found


def test_user_facing_code_takes_defaults_and_bounds_from_their_names() -> None:
    found = [
        _where(path, node)
        for path in _sources(*USER_FACING)
        for node in literal_defaults(ast.parse(path.read_text("utf-8")))
    ]
    assert found == []


NAMES = st.sampled_from(sorted(DEFAULTED))
VALUES = st.one_of(st.integers(2, 10**6), st.sampled_from(['"Inbox"', '"Coast"']))


@given(name=NAMES, value=VALUES)
def test_the_check_finds_a_literal_default_in_every_form(name: str, value: object) -> None:
    """The check itself: each way of writing a default is caught, and a named one is not."""
    option = "--" + name.replace("_", "-")
    forms = [
        f"def f(x, {name}={value}): ...",
        f"async def f(*, {name}: int = {value}): ...",
        f"class P:\n    {name}: Kind = {value}",
        f"class P:\n    {name}: str = Field(default={value}, description='A title.')",
        f"@click.option('{option}', default={value})\ndef f(): ...",
    ]
    if isinstance(value, int):  # a bound is a number
        forms += [
            f"class P:\n    {name}: Annotated[int, Field(le={value})] = LIMIT",
            f"@click.option('{option}', type=click.IntRange(1, {value}), default=LIMIT)\ndef f(): ...",
        ]
    for source in forms:
        assert len(literal_defaults(ast.parse(source))) == 1, source
    named = [
        f"def f(x, {name}=LIMIT, other={value}): ...",
        f"class P:\n    {name}: Annotated[int, Field(le=MAX)] = LIMIT",
        f"class P:\n    {name}: str = Field(description='The collection, e.g. Inbox.')",
        f"@click.option('{option}', type=click.IntRange(1, MAX), default=LIMIT)\ndef f(): ...",
        f"@click.option('--other', default={value})\ndef f(): ...",
    ]
    for source in named:
        assert literal_defaults(ast.parse(source)) == [], source


def _every_kind_written(tree: ast.AST) -> list[ast.AST]:
    """Literal lists, tuples, sets, dicts (keys) and `Literal[...]`s naming every kind."""
    kinds = set(PROVIDER_KINDS)
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        items: list[ast.expr | None] = []
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = list(node.keys)
        strings = {i.value for i in items if isinstance(i, ast.Constant)}
        if kinds <= strings:
            found.append(node)
    return found


def test_the_provider_kinds_are_listed_only_where_they_are_defined() -> None:
    """`llm.config` defines the kinds (and the per-kind context windows); everyone else reads
    `ProviderKind` or `PROVIDER_KINDS`."""
    found = sorted(
        {
            str(path.relative_to(PACKAGE))
            for path in _sources()
            if _every_kind_written(ast.parse(path.read_text("utf-8")))
        }
    )
    assert found == ["llm/config.py"]
    assert len(PROVIDER_KINDS) == 6
