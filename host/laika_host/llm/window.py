"""A model's context window, asked of the server that runs it.

Packing to an assumed window sends a small model too much (the server cuts the prompt) or a
large one too little (a question over one article sent only its title). Where the server says:

- llama-server: `GET /props` -> `default_generation_settings.n_ctx` (the window it runs with);
- vLLM: `GET /v1/models` -> the model's `max_model_len`; LM Studio: `GET /api/v0/models` ->
  `loaded_context_length` (never a model's training window: llama-server runs a model
  trained on 8,192 tokens with `-c 2048`);
- Ollama: `POST /api/show` -> `model_info["<arch>.context_length"]` (we size `num_ctx` per
  request, up to this);
- OpenRouter: `GET /models` -> the model's `context_length`.

The provider's configured `context_window` always wins; nothing is asked then. An answer is
kept per server and model for the process's life; a server that does not say (or is down)
leaves the kind's default. Only the configured address is asked, with its key.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from .client import tls_context
from .config import ProviderConfig

log = logging.getLogger("laika.llm")

TIMEOUT_SECONDS = 3.0
SMALLEST, LARGEST = 512, 10_000_000
_known: dict[tuple[str, str, str], int | None] = {}


async def discovered_window(provider: ProviderConfig) -> int | None:
    """The window the provider's server reports for its model, or None when it does not."""
    if provider.context_window:
        return provider.context_window
    key = (provider.kind, provider.url, provider.model)
    if key not in _known:
        _known[key] = await _ask(provider)
    return _known[key]


async def with_window(provider: ProviderConfig) -> ProviderConfig:
    """The provider with `context_window` set from its server, when the user set none."""
    if provider.context_window:
        return provider
    window = await discovered_window(provider)
    return provider if window is None else provider.model_copy(update={"context_window": window})


def forget() -> None:
    """Drop what servers said (a test, or a server restarted with another window)."""
    _known.clear()


async def _ask(provider: ProviderConfig) -> int | None:
    headers = {}
    key = provider.api_key()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        async with httpx.AsyncClient(
            timeout=TIMEOUT_SECONDS, verify=tls_context(), headers=headers, trust_env=False
        ) as http:
            for read in _READERS.get(provider.kind, ()):
                window = await read(http, provider)
                if window is not None:
                    return window
    except (httpx.HTTPError, ValueError) as error:
        log.info("context window of %s not discovered: %s", provider.id, type(error).__name__)
    return None


def _sane(value: Any) -> int | None:
    return value if isinstance(value, int) and SMALLEST <= value <= LARGEST else None


async def _json(http: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> Any:
    response = await http.request(method, url, **kwargs)
    if response.status_code != 200:
        return None
    return response.json()


async def _llama_props(http: httpx.AsyncClient, provider: ProviderConfig) -> int | None:
    body = await _json(http, "GET", provider.url.removesuffix("/v1") + "/props")
    settings = body.get("default_generation_settings") if isinstance(body, dict) else None
    return _sane(settings.get("n_ctx")) if isinstance(settings, dict) else None


async def _model_listing(http: httpx.AsyncClient, provider: ProviderConfig) -> int | None:
    """vLLM's `max_model_len`, OpenRouter's `context_length`."""
    body = await _json(http, "GET", provider.url.rstrip("/") + "/models")
    for model in _models(body):
        if model.get("id") == provider.model or len(_models(body)) == 1:
            for value in (model.get("max_model_len"), model.get("context_length")):
                if (window := _sane(value)) is not None:
                    return window
    return None


async def _lm_studio(http: httpx.AsyncClient, provider: ProviderConfig) -> int | None:
    body = await _json(http, "GET", provider.url.removesuffix("/v1") + "/api/v0/models")
    for model in _models(body):
        if model.get("id") == provider.model:
            return _sane(model.get("loaded_context_length")) or _sane(
                model.get("max_context_length")
            )
    return None


async def _ollama_show(http: httpx.AsyncClient, provider: ProviderConfig) -> int | None:
    body = await _json(
        http, "POST", provider.url.rstrip("/") + "/api/show", json={"model": provider.model}
    )
    info = body.get("model_info") if isinstance(body, dict) else None
    if not isinstance(info, dict):
        return None
    lengths = [_sane(v) for k, v in info.items() if str(k).endswith(".context_length")]
    return next((length for length in lengths if length is not None), None)


def _models(body: Any) -> list[dict[str, Any]]:
    data = body.get("data") if isinstance(body, dict) else None
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []


_READERS = {
    "openai_compatible": (_llama_props, _lm_studio, _model_listing),
    "ollama": (_ollama_show,),
    "ollama_cloud": (_ollama_show,),
    "openrouter": (_model_listing,),
}
