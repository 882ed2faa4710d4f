"""`laika models ...`: configured model providers, whether each answers, add and remove."""

from __future__ import annotations

from typing import TypeVar

import click

from ..llm.config import CONTEXT_FORMATS, PROVIDER_KINDS
from ..service import models as service
from ._output import echo, print_json
from ._store import json_option, table

T = TypeVar("T")


@click.group()
def models() -> None:
    """Model providers (keys stay in environment variables; only their names are saved)."""


@models.command("list")
@click.option("--no-probe", is_flag=True, help="Do not contact the providers.")
@json_option
def list_models(no_probe: bool, as_json: bool) -> None:
    """Configured and detected providers, and whether each answers (the built-in offline
    runtime always does)."""
    rows = service.probe_providers(contact=not no_probe)
    if as_json:
        print_json({"providers": rows})
        return
    lines = [
        [r["id"], r["kind"], r["model"], "yes" if r["answers"] else "no", r["detail"]] for r in rows
    ]
    echo(table(lines, ["ID", "KIND", "MODEL", "ANSWERS", "DETAIL"]))


@models.command("add")
@click.argument("provider_id")
@click.option("--kind", type=click.Choice(PROVIDER_KINDS), required=True)
@click.option("--model", required=True, help="The model id, e.g. gpt-4o or llama3.2.")
@click.option(
    "--base-url", help="Where the API lives (each kind has a default but openai_compatible)."
)
@click.option("--api-key-env", help="Name of the environment variable holding the key.")
@click.option("--title", help="OpenRouter X-Title.")
@click.option("--referer", help="OpenRouter HTTP-Referer.")
@click.option("--context-window", type=click.IntRange(512), help="Ollama: largest num_ctx.")
@click.option("--think/--no-think", default=None, help="Ollama: send think true/false.")
@click.option(
    "--markdown-mode",
    is_flag=True,
    help="For a model that cannot keep to JSON: ask for Markdown with quoted lines instead.",
)
@click.option(
    "--context-format",
    type=click.Choice(CONTEXT_FORMATS),
    default=None,
    help="How sources and replies travel: LLMCP JSON (the default), or compact LLMX, which "
    "fits more source text in a small context window (docs/llmx.md has the measurements).",
)
@json_option
def add(
    provider_id: str,
    kind: str,
    model: str,
    base_url: str | None,
    api_key_env: str | None,
    title: str | None,
    referer: str | None,
    context_window: int | None,
    think: bool | None,
    markdown_mode: bool,
    context_format: str | None,
    as_json: bool,
) -> None:
    """Add (or replace) a provider. The key is never saved: only its variable's name."""
    spec = service.ProviderSpec(
        provider_id,
        kind,  # type: ignore[arg-type]  # click.Choice(PROVIDER_KINDS)
        model,
        base_url,
        api_key_env,
        markdown_mode,
        {
            "title": title,
            "referer": referer,
            "context_window": context_window,
            "think": think,
            "context_format": context_format,
        },
    )
    added = service.add_provider(spec)
    if as_json:
        print_json({"saved": added.provider.model_dump(mode="json"), "path": str(added.path)})
    else:
        echo(f"saved {provider_id} ({kind}, {model}) to {added.path}")


@models.command("remove")
@click.argument("provider_id")
def remove(provider_id: str) -> None:
    """Remove a configured provider."""
    service.remove_provider(provider_id)
    echo(f"removed {provider_id}")
