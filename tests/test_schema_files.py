"""`schema/` is generated from the models; drift is caught by `laika schema check`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from laika_host import schemas
from laika_host.cli import main
from laika_host.protocol import Citation
from laika_host.protocol._base import optional

from support import SCHEMA_DIR, run_laika


@pytest.mark.slow  # > 3 s with the cores busy
def test_committed_schemas_match_the_models() -> None:
    done = run_laika("schema", "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok: ")


def test_every_schema_file_is_a_valid_2020_12_schema() -> None:
    files = sorted(SCHEMA_DIR.rglob("*.schema.json"))
    assert len(files) == len(schemas.generate_schemas())
    for path in files:
        document = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(document)
        assert document["$id"] == path.relative_to(SCHEMA_DIR).as_posix()


@pytest.fixture
def schema_copy(tmp_path: Path) -> Path:
    target = tmp_path / "schema"
    shutil.copytree(SCHEMA_DIR, target)
    return target


@pytest.mark.slow  # > 3 s with the cores busy
def test_check_names_an_edited_file(schema_copy: Path) -> None:
    edited = schema_copy / "llmcp" / "citation.schema.json"
    edited.write_text(edited.read_text().replace('"quote"', '"excerpt"'))
    done = run_laika("schema", "check", "--dir", str(schema_copy))
    assert done.returncode == 1
    assert f"{edited}: differs from the models" in done.stdout
    assert "laika schema export" in done.stderr


@pytest.mark.slow  # > 3 s with the cores busy
def test_check_names_missing_and_stale_files(schema_copy: Path) -> None:
    (schema_copy / "llmcp" / "request.schema.json").unlink()
    (schema_copy / "llmcp" / "old.schema.json").write_text("{}")
    done = run_laika("schema", "check", "--dir", str(schema_copy))
    assert done.returncode == 1
    assert "request.schema.json: missing" in done.stdout
    assert "old.schema.json: stale" in done.stdout


def test_changing_a_model_without_exporting_fails_the_check(
    schema_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class ChangedCitation(Citation):
        page: int | None = optional()

    original = schemas._sources

    def changed_sources() -> dict[str, tuple[schemas.SchemaSource, str]]:
        sources = original()
        sources["llmcp/citation"] = (ChangedCitation, sources["llmcp/citation"][1])
        return sources

    monkeypatch.setattr(schemas, "_sources", changed_sources)
    result = CliRunner().invoke(main, ["schema", "check", "--dir", str(schema_copy)])
    assert result.exit_code == 1
    assert "citation.schema.json: differs from the models" in result.output
    assert '+      "page"' in result.output or '"page"' in result.output

    exported = CliRunner().invoke(main, ["schema", "export", "--dir", str(schema_copy)])
    assert exported.exit_code == 0
    assert CliRunner().invoke(main, ["schema", "check", "--dir", str(schema_copy)]).exit_code == 0


@pytest.mark.slow  # > 3 s with the cores busy
def test_export_into_an_empty_directory_then_check(tmp_path: Path) -> None:
    target = tmp_path / "fresh"
    assert run_laika("schema", "export", "--dir", str(target)).returncode == 0
    (target / "llmcp" / "stale.schema.json").write_text("{}")
    assert run_laika("schema", "export", "--dir", str(target)).returncode == 0
    assert not (target / "llmcp" / "stale.schema.json").exists()
    assert run_laika("schema", "check", "--dir", str(target)).returncode == 0
