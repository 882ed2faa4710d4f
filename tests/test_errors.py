"""One error hierarchy, one table to native error codes, one to exit codes, and no handler or
command that maps errors by itself."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import laika_host
from laika_host.errors import (
    EXIT_CODES,
    NATIVE_CODES,
    LaikaError,
    category,
    exit_code,
    native_code,
)
from laika_host.native.errors import ERROR_TABLE, ErrorCode, HostError, host_error

from support import REPO

PACKAGE = Path(laika_host.__file__).parent
PROTOCOL = (REPO / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
DOCUMENTED_CODES = set(re.findall(r"^\| `([a-z_]+)` \| (?:yes|no) \|", PROTOCOL, re.MULTILINE))


def _modules() -> list[str]:
    names = [
        info.name
        for info in pkgutil.walk_packages([str(PACKAGE)], prefix="laika_host.")
        if not info.name.endswith("__main__")  # runs the host
    ]
    for name in names:
        importlib.import_module(name)
    return names


MODULES = _modules()


def _all_subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _all_subclasses(sub)
    return found


ERROR_CLASSES = sorted(
    (cls for cls in _all_subclasses(LaikaError) if cls.__module__.startswith("laika_host.")),
    key=lambda cls: f"{cls.__module__}.{cls.__qualname__}",
)
CATEGORIES = set(NATIVE_CODES) | set(EXIT_CODES)
ERROR_NAMES = {cls.__name__ for cls in ERROR_CLASSES} | {"LaikaError"}


def _carries_its_code(cls: type) -> bool:
    """HostError and its subclasses are the native form itself: each carries its code."""
    return issubclass(cls, HostError)


def test_every_exception_laika_defines_is_a_laika_error() -> None:
    """Private ones (`_RetryError`) are control flow inside one module and never escape it."""
    strays = [
        f"{name}.{cls.__qualname__}"
        for name in MODULES
        for _, cls in inspect.getmembers(importlib.import_module(name), inspect.isclass)
        if cls.__module__ == name
        and issubclass(cls, BaseException)
        and not issubclass(cls, LaikaError)
        and not cls.__name__.startswith("_")
    ]
    assert strays == []


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda cls: cls.__qualname__)
def test_every_error_class_maps_to_a_documented_code_and_an_exit_status(cls: type) -> None:
    if _carries_its_code(cls):
        return
    assert category(cls, NATIVE_CODES) in DOCUMENTED_CODES
    assert category(cls, NATIVE_CODES) in {code.value for code in ErrorCode}
    assert category(cls, EXIT_CODES) in (1, 2)
    if cls not in CATEGORIES:  # a concrete class: it names a category, not only the root
        first = next(base for base in cls.__mro__ if base in CATEGORIES)
        assert first is not LaikaError, f"{cls.__qualname__} names no category"


def test_each_table_maps_categories_only_to_known_values() -> None:
    assert set(NATIVE_CODES.values()) <= {code.value for code in ErrorCode}
    assert set(EXIT_CODES.values()) <= {1, 2}
    assert all(issubclass(cls, LaikaError) for cls in CATEGORIES)
    assert LaikaError in NATIVE_CODES  # nothing falls through
    assert LaikaError in EXIT_CODES


def test_the_host_reply_carries_the_code_message_details_and_retry_of_the_error() -> None:
    from laika_host.capture import CaptureError
    from laika_host.llm.errors import LlmError, ProviderConfigError
    from laika_host.llm.manage import ProviderNotFoundError
    from laika_host.store import NotFoundError, StoreBusyError

    for error, code in [
        (CaptureError("binary", "a binary file"), "bad_request"),
        (NotFoundError("no source src_1"), "not_found"),
        (StoreBusyError("locked"), "busy"),
        (ProviderNotFoundError("no provider 'x'"), "not_found"),
        (ProviderConfigError("needs a base_url"), "bad_request"),
        (LlmError("auth", "HTTP 401"), "provider_error"),
        (LlmError("rate_limit", "HTTP 429"), "provider_error"),
    ]:
        reply = host_error(error).to_json()
        assert reply["code"] == code == native_code(error)
        assert reply["message"] == str(error)
        default_retry = ERROR_TABLE[ErrorCode(code)][0]
        assert reply["retryable"] == getattr(error, "retryable", default_retry)
        assert reply.get("details") == error.error_details()
    assert host_error(CaptureError("binary", "x")).details == {"capture_error": "binary"}
    assert exit_code(CaptureError("binary", "x")) == 2
    assert exit_code(NotFoundError("x")) == 1


# --- no handler or command maps errors by itself -------------------------------------------


def _names(node: ast.AST) -> set[str]:
    return {
        child.id if isinstance(child, ast.Name) else child.attr
        for child in ast.walk(node)
        if isinstance(child, ast.Name | ast.Attribute)
    }


def _maps_itself(call: ast.Call) -> bool:
    """A reply error or click error built by hand, or an exit status written as a number."""
    called = _names(call.func)
    if called & {"HostError", "ClickException"}:
        return True
    return "exit" in called and any(_a_number(arg) for arg in call.args)


def _a_number(node: ast.expr) -> bool:
    """`2` or a module's constant (`EXIT_NOT_JSON`): a status not asked of the table."""
    return isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and node.id.isupper())


def _own_mappings(path: Path) -> list[str]:
    """Except clauses of a LaikaError that build a code or exit status themselves, and dict
    literals keyed by error classes (a private table)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ExceptHandler) and node.type and _names(node.type) & ERROR_NAMES:
            found += [
                f"{path.name}:{inner.lineno}"
                for statement in node.body
                for inner in ast.walk(statement)
                if isinstance(inner, ast.Call) and _maps_itself(inner)
            ]
        if isinstance(node, ast.Dict) and any(
            key is not None and _names(key) & ERROR_NAMES for key in node.keys
        ):
            found.append(f"{path.name}:{node.lineno} (a table keyed by error classes)")
    return sorted(set(found))


def test_no_module_but_the_errors_module_maps_errors_to_codes() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "errors.py" and (found := _own_mappings(path))
    }
    assert offenders == {}


def test_the_mapping_check_finds_a_handler_that_maps_errors_itself(tmp_path: Path) -> None:
    """The check above is not vacuous: the shapes it replaced are caught."""
    sample = tmp_path / "handler.py"
    sample.write_text(
        "_CODES = {NotFoundError: ErrorCode.NOT_FOUND}\n"
        "try:\n    pass\nexcept StoreError as error:\n"
        "    raise HostError(ErrorCode.BAD_REQUEST, str(error))\n"
        "try:\n    pass\nexcept CaptureError as exc:\n    sys.exit(2)\n"
        "try:\n    pass\nexcept LlmError as error:\n"
        "    raise click.ClickException(error.message)\n"
        "try:\n    pass\nexcept NotJsonError as exc:\n    sys.exit(exit_code(exc))\n"
        "try:\n    pass\nexcept NotJsonError as exc:\n    sys.exit(EXIT_NOT_JSON)\n",
        encoding="utf-8",
    )
    assert _own_mappings(sample) == [
        "handler.py:1 (a table keyed by error classes)",
        "handler.py:13",
        "handler.py:21",
        "handler.py:5",
        "handler.py:9",
    ]
