"""`laika schema export|check`: keep `schema/` in step with the protocol models."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._output import echo


def default_schema_dir() -> Path:
    """`schema/` of the source checkout this package runs from, else `./schema`."""
    checkout = Path(__file__).resolve().parents[3]
    if (checkout / "pyproject.toml").is_file() and (checkout / "schema").is_dir():
        return checkout / "schema"
    return Path("schema")


_DIR_OPTION = click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Schema directory (default: schema/ of this checkout).",
)


@click.group()
def schema() -> None:
    """JSON Schemas generated from the protocol models."""


@schema.command()
@_DIR_OPTION
def export(directory: Path | None) -> None:
    """Write every schema file (and delete stale ones)."""
    from ..schemas import export_schemas

    target = directory or default_schema_dir()
    written = export_schemas(target)
    echo(f"wrote {len(written)} schema files to {target}")


@schema.command()
@_DIR_OPTION
@click.option("--diff/--no-diff", default=True, help="Show how each drifted file differs.")
def check(directory: Path | None, diff: bool) -> None:
    """Exit 1 and name each file when the committed schemas differ from the models."""
    from ..schemas import check_schemas, generate_schemas

    target = directory or default_schema_dir()
    drifts = check_schemas(target)
    if not drifts:
        echo(f"ok: {len(generate_schemas())} schema files in {target} match the models")
        return
    for drift in drifts:
        echo(f"{target / drift.path}: {drift.problem}")
        if diff and drift.diff:
            echo(drift.diff)
    echo(
        f"{len(drifts)} schema file(s) out of date; run `laika schema export` and commit.",
        err=True,
    )
    sys.exit(1)
