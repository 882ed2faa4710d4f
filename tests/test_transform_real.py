"""Every transform type with the real local model (llama-server + SmolLM2): whatever the small
model writes, the artifact is structurally valid, safely rendered, and every item is verified
or flagged; a run that gets no usable item fails with the reason and the fix."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from laika_host.capture import capture_html
from laika_host.demo.pages import PAGES
from laika_host.llm.config import ProviderConfig
from laika_host.llm.local_model import LocalServer
from laika_host.store import open_store
from laika_host.transform import list_types, run_transform
from test_transform_offline import CONFIG, assert_safe, assert_structure

from llm_fixtures import llama_server  # noqa: F401 - the session fixture

pytestmark = [pytest.mark.real_llm, pytest.mark.slow]
READY = [t["id"] for t in list_types() if t["ready"]]
MAX_TOKENS = 300
"""Enough for a few items of every type; at 600 the 20 types took 22 of CI's 72 minutes on two
cores, the model writing at some 10 tokens a second (a cut reply is one of the cases checked)."""


@pytest.mark.parametrize("type_id", READY)
def test_every_type_with_the_local_model_is_valid_and_verified_or_flagged(
    llama_server: LocalServer,  # noqa: F811
    tmp_path: Path,
    type_id: str,
) -> None:
    provider = ProviderConfig(
        id="smol", kind="openai_compatible", model="smollm2", base_url=f"{llama_server.base_url}/v1"
    )

    async def main() -> dict[str, Any]:
        async with open_store(tmp_path / "laika.db") as store:
            for page in PAGES:
                await store.sources.save_capture("Demo", capture_html(page.html.encode(), page.url))
            result = await run_transform(
                store,
                "Demo",
                type_id,
                CONFIG.get(type_id),
                provider=provider,
                max_tokens=MAX_TOKENS,
            )
            return result.to_json()

    result = asyncio.run(main())
    artifact = result["artifact"]
    assert artifact["status"] in ("completed", "failed")
    if artifact["status"] == "failed":
        assert "smol gave no usable" in artifact["error"]
        assert "the offline runtime (provider `offline`" in artifact["error"]
        return
    assert artifact["provider"] == ("metadata" if type_id == "citation-list" else "smol")
    assert_structure(type_id, artifact)
    assert_safe(artifact["content_markdown"] or "")
