"""Does a provider answer? One cheap GET per provider (its model list), and auto-detection of
a local Ollama and a configured llama.cpp server."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import ValidationError

from .adapters.anthropic import API_VERSION
from .config import ProviderConfig
from .errors import LlmError, scrub

PROBE_TIMEOUT = 3.0
OLLAMA_LOCAL = "http://127.0.0.1:11434"
LLAMA_SERVER_ENV = "LAIKA_LLAMA_SERVER_URL"


@dataclass
class Probe:
    provider: ProviderConfig
    answers: bool
    detail: str
    source: str  # configured, detected

    def to_json(self) -> dict[str, Any]:
        provider = self.provider
        key_env = provider.key_env
        return {
            "id": provider.id,
            "kind": provider.kind,
            "model": provider.model,
            "base_url": provider.url,
            "api_key_env": key_env,
            "api_key_set": bool(key_env and os.environ.get(key_env)),
            "answers": self.answers,
            "detail": self.detail,
            "source": self.source,
        }


def _request(provider: ProviderConfig) -> tuple[str, dict[str, str]]:
    key = provider.api_key()
    if provider.kind == "anthropic":
        return f"{provider.url}/v1/models", {
            "x-api-key": key or "",
            "anthropic-version": API_VERSION,
        }
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if provider.kind in ("ollama", "ollama_cloud"):
        return f"{provider.url}/api/tags", headers
    return f"{provider.url}/models", headers


def probe(provider: ProviderConfig, client: httpx.Client, source: str = "configured") -> Probe:
    """One GET; every way it can fail (a refused key or URL, any httpx error, InvalidURL
    included, which is no HTTPError) is an answer of `answers=False` with the reason."""
    try:
        url, headers = _request(provider)
    except LlmError as error:
        return Probe(provider, False, f"not contacted: {error.message}", source)
    secrets = tuple(v for v in headers.values() if v)
    try:
        response = client.get(url, headers=headers, timeout=PROBE_TIMEOUT)
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as error:
        detail = scrub(f"no answer: {type(error).__name__}", secrets)
        return Probe(provider, False, detail, source)
    if response.status_code >= 400:
        return Probe(provider, False, f"HTTP {response.status_code}", source)
    return Probe(provider, True, _model_count(response), source)


def _model_count(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return "ok"
    models = body.get("data") or body.get("models") if isinstance(body, dict) else None
    return f"ok, {len(models)} models" if isinstance(models, list) else "ok"


def detected(configured: list[ProviderConfig], client: httpx.Client) -> list[Probe]:
    """A local Ollama on its default port, and a llama.cpp server named by LAIKA_LLAMA_SERVER_URL,
    unless already configured."""
    urls = {p.url for p in configured}
    found: list[Probe] = []
    if OLLAMA_LOCAL not in urls:
        found += _detect_ollama(client)
    llama = os.environ.get(LLAMA_SERVER_ENV, "").rstrip("/")
    if llama and llama not in urls:
        base = llama if llama.endswith("/v1") else f"{llama}/v1"
        try:
            provider = ProviderConfig(
                id="llama-cpp", kind="openai_compatible", model="default", base_url=base
            )
        except ValidationError:  # not a usable URL: nothing to detect there
            return found
        found.append(probe(provider, client, "detected"))
    return found


def _detect_ollama(client: httpx.Client) -> list[Probe]:
    try:
        response = client.get(f"{OLLAMA_LOCAL}/api/tags", timeout=1.0)
        models = response.json().get("models", []) if response.status_code == 200 else []
    except (httpx.HTTPError, ValueError):
        return []
    names = [str(m["name"]) for m in models if isinstance(m, dict) and m.get("name")]
    provider = ProviderConfig(id="ollama", kind="ollama", model=names[0] if names else "llama3.2")
    return [Probe(provider, True, f"ok, {len(names)} models", "detected")]
