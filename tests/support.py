"""Shared test helpers: fixture loading, the real `laika` executable, JSON Schema validators."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPEC_FIXTURES = FIXTURES / "spec000"
SCHEMA_DIR = REPO / "schema"


def load_fixture(name: str) -> Any:
    return json.loads((SPEC_FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


@cache
def _registry() -> Registry:
    resources = []
    for path in SCHEMA_DIR.rglob("*.schema.json"):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    return Registry().with_resources(resources)


@cache
def schema_validator(relative: str) -> Draft202012Validator:
    """A validator for one committed schema file, e.g. `llmcp/request.schema.json`."""
    contents = json.loads((SCHEMA_DIR / relative).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(contents)
    return Draft202012Validator(contents, registry=_registry())


def laika_executable() -> str:
    """The installed console script next to this interpreter (what a user runs)."""
    candidate = Path(sys.executable).with_name("laika")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("laika")
    if found is None:
        pytest.fail("the `laika` console script is not installed; run `pip install -e .`")
    return found


def run_laika(
    *args: str,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the real `laika` command in a subprocess, as a user would."""
    completed = subprocess.run(
        [laika_executable(), *args],
        input=stdin,
        capture_output=True,
        cwd=cwd or REPO,
        env={**(env or os.environ), "PYTHONUTF8": "1"},
        check=False,
    )
    return subprocess.CompletedProcess(
        completed.args,
        completed.returncode,
        completed.stdout.decode("utf-8"),
        completed.stderr.decode("utf-8"),
    )


CURRENT_TEST: pytest.Item | None = None
"""The test being set up or run (set by conftest), for `require_marker`."""


def require_marker(name: str, why: str) -> None:
    """Fail a test that does what marker `name` stands for without carrying it, so that
    `bash tests/run --fast` (which deselects those markers) cannot drift."""
    if CURRENT_TEST is not None and CURRENT_TEST.get_closest_marker(name) is None:
        pytest.fail(f"{CURRENT_TEST.nodeid} {why}: mark it @pytest.mark.{name}")


def capture_dev_corpus() -> Path:
    """The capture-dev corpus (`$LAIKA_CAPTURE_DEV` or `shared/corpora/capture-dev` beside the
    repository); skips the test when it is absent, as in a bare clone."""
    require_marker("corpus", "reads the shared corpora")
    configured = os.environ.get("LAIKA_CAPTURE_DEV")
    corpus = Path(configured) if configured else REPO.parent / "shared/corpora/capture-dev"
    if not (corpus / "expectations.json").is_file():
        pytest.skip(f"capture-dev corpus not found at {corpus}; set LAIKA_CAPTURE_DEV")
    return corpus


def xss_corpus() -> list[tuple[str, str]]:
    """(name, vector) for every string of every `*.json` list in the XSS corpus folder
    (`$LAIKA_XSS_CORPUS` or `shared/corpora/xss`); skips the test when there is none."""
    require_marker("corpus", "reads the shared corpora")
    configured = os.environ.get("LAIKA_XSS_CORPUS")
    folder = Path(configured) if configured else REPO.parent / "shared/corpora/xss"
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        pytest.skip(f"no XSS corpus at {folder} (set LAIKA_XSS_CORPUS to a folder of *.json)")
    vectors: list[tuple[str, str]] = []
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data, list), f"{path} is not a JSON list"
        assert all(isinstance(vector, str) for vector in data), f"{path} holds non-strings"
        vectors.extend((f"{path.stem}-{index}", vector) for index, vector in enumerate(data))
    return vectors


def bench_module(name: str) -> ModuleType:
    """A script of `bench/` loaded as a module, so a test checks the code the bench runs."""
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PACK_BUDGETS = (300, 945, 6_000)
"""Pack budgets that cover a tiny window, a 2,048-token model's and an 8,192-token one's."""


async def packed_texts(store: Any, collection: str, question: str) -> list[str]:
    """The documents `laika ask` would send for `question`, as JSON text, at each of
    `PACK_BUDGETS` (to look for what must never reach a model)."""
    from laika_host.agent.flows import _pack

    target = await store.collections.get(collection)
    return [
        json.dumps((await _pack(store, target.id, collection, question, budget)).documents,
                   ensure_ascii=False)
        for budget in PACK_BUDGETS
    ]  # fmt: skip
