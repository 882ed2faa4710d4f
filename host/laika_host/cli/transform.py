"""`laika transform list` and `laika transform run`: artifacts made from a collection."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..defaults import DEFAULT_COLLECTION, MAX_MAX_TOKENS, MIN_MAX_TOKENS, TRANSFORM_MAX_TOKENS
from ._output import echo, print_json
from ._store import json_option, run_with_store, table
from .ask import with_provider_options


@click.group()
def transform() -> None:
    """Turn a collection into an artifact (summary, timeline, quiz, ...), every item cited."""


@transform.command("list")
@json_option
def list_command(as_json: bool) -> None:
    """The transform types, with their settings (`--json`: each with its config schema)."""
    from ..service.transforms import list_types

    types = list_types()
    if as_json:
        print_json({"types": types})
        return
    rows = []
    for entry in types:
        settings = ", ".join(_settings(entry["config_schema"]))
        offline = "needs a model" if entry["needs_model"] else "yes"
        rows.append([entry["id"], entry["description"], offline, settings or "-"])
    echo(table(rows, ["TYPE", "WHAT", "OFFLINE", "SETTINGS (--config key=value)"]))
    echo("A type that needs a model runs with `--provider ID` (`laika models list`).")


def _settings(schema: dict[str, Any]) -> list[str]:
    """Each setting with its default, or said to be required or optional (one the type
    works without, such as a comparison's aspects, has no default to show)."""
    required = set(schema.get("required", []))
    shown = []
    for name, field in schema.get("properties", {}).items():
        if "default" in field:
            shown.append(f"{name}={json.dumps(field['default'])}")
        else:
            shown.append(f"{name} ({'required' if name in required else 'optional'})")
    return shown


def _config(
    _context: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> list[tuple[str, str]]:
    """The `key=value` pairs in order; the type's config reads them (`run_command`)."""
    pairs = []
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r}: write key=value, e.g. --config count=5")
        pairs.append((key.strip(), raw))
    return pairs


@transform.command("run")
@click.argument("type_id", metavar="TYPE")
@click.option("--collection", "-c", default=DEFAULT_COLLECTION, show_default=True)
@click.option(
    "--config",
    "config",
    multiple=True,
    callback=_config,
    help='A setting, key=value (repeatable). A list takes `aspects="price, battery"`, the key '
    "repeated (`--config aspects=price --config aspects=battery`), or JSON "
    '(`aspects=\'["price", "battery"]\'`).',
)
@click.option("--force", is_flag=True, help="Make a new artifact even if an identical one exists.")
@click.option(
    "--max-tokens",
    type=click.IntRange(MIN_MAX_TOKENS, MAX_MAX_TOKENS),
    default=TRANSFORM_MAX_TOKENS,
    show_default=True,
)
@with_provider_options
@json_option
def run_command(
    type_id: str,
    collection: str,
    config: list[tuple[str, str]],
    force: bool,
    max_tokens: int,
    provider_id: str | None,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    kind: str | None,
    as_json: bool,
) -> None:
    """Make an artifact of TYPE from a collection's sources (offline by default).

    An identical artifact that is still current is shown again (reused) unless --force; an
    identical run already in progress is joined, not repeated.
    """
    from ..service import transforms
    from ..service.models import ProviderChoice

    request = transforms.TransformRequest(
        type_id,
        collection,
        transforms.config_from_pairs(type_id, config),
        ProviderChoice(provider_id, model, base_url, api_key_env, kind),
        force=force,
        max_tokens=max_tokens,
    )
    result = run_with_store(lambda store: transforms.run(store, request))
    shown = result.to_json()
    if as_json:
        print_json(shown)
    else:
        _print(shown)
    if result.status != "completed":
        sys.exit(1)


def _print(shown: dict[str, Any]) -> None:
    artifact = shown["artifact"]
    if artifact.get("content_markdown"):
        echo(artifact["content_markdown"])
    items = artifact["items"]
    verified = sum(bool(item.get("verified")) for item in items)
    how = (
        " (reused: unchanged sources)"
        if shown["reused"]
        else " (joined a run in progress)"
        if shown["joined"]
        else ""
    )
    echo(
        f"artifact {artifact['id']} {artifact['status']}: {len(items)} item(s), "
        f"{verified} verified{how}",
        err=True,
    )
    if artifact.get("error"):
        echo(f"laika: {artifact['error']}", err=True)
    for warning in shown["warnings"]:
        echo(f"note: {warning}", err=True)
