"""`laika ask` with the real SmolLM2 server: whatever the small model writes, every citation
shown as verified is really in the stored text, and the rest are flagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from laika_host.agent.flows import UNCITED
from laika_host.agent.verify import normalize
from laika_host.llm.local_model import LocalServer

from llm_fixtures import llama_server  # noqa: F401 - the session fixture
from support import run_laika

pytestmark = [
    pytest.mark.real_llm,
    pytest.mark.corpus,
]  # corpus pages join the collection when present
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "capture-dev" / "html"
PAGE = """<html><head><title>Harbour tides</title></head><body><article><h1>Harbour tides</h1>
<p>High water at the harbour comes twice a day because the moon pulls the oceans.</p>
<p>Spring tides are the largest of the month, when the sun and the moon pull together.</p>
</article></body></html>"""


@pytest.mark.parametrize("mode", ["json", "markdown"])
def test_ask_with_smollm2_shows_only_verified_citations_as_verified(
    llama_server: LocalServer,  # noqa: F811
    tmp_path: Path,
    mode: str,
) -> None:
    page = tmp_path / "tides.html"
    page.write_text(PAGE)
    assert (
        run_laika("capture", str(page), "--url", "https://tides.test/a", "-c", "Coast").returncode
        == 0
    )
    for html in sorted(CORPUS.glob("*.html"))[:3] if CORPUS.exists() else []:
        run_laika("capture", str(html), "--url", f"https://dev.test/{html.stem}", "-c", "Coast")
    server = ["--base-url", f"{llama_server.base_url}/v1", "--model", "smollm2"]
    if mode == "markdown":  # a configured provider: the mode is part of its configuration
        added = run_laika("models", "add", "smol", "--kind", "openai_compatible", *server,
                          "--markdown-mode")  # fmt: skip
        assert added.returncode == 0, added.stderr
        provider = ["--provider", "smol"]
    else:
        provider = [*server, "--kind", "openai_compatible"]
    done = run_laika(
        "ask", "Why does high water come twice a day?", "-c", "Coast", "--json",
        "--max-tokens", "300", *provider,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] in ("ok", "partial", "invalid_output")  # prose is still an answer
    assert answer["answer_markdown"].strip()
    assert answer["run_id"]
    shown = run_laika("sources", "list", "-c", "Coast", "--json")
    texts = {}
    for source in json.loads(shown.stdout)["sources"]:
        detail = json.loads(run_laika("sources", "show", source["id"], "--json").stdout)
        texts[source["id"]] = normalize(detail["markdown"])
    verified = [c for c in answer["citations"] if c["verified"]]
    flagged = [c for c in answer["citations"] if not c["verified"]]
    # a 135M model often cites nothing (or nothing that verifies): then the answer must say
    # so, never pass unchecked prose off as checked; when it does cite, every check holds
    if not verified:
        assert UNCITED in answer["warnings"], answer
    for citation in verified:
        assert normalize(citation["quote"])[:40] in texts[citation["source_id"]]
        assert citation["locator"]
    for citation in flagged:
        assert citation["reason"]
    logs = run_laika("logs", "list", "--json")
    run = json.loads(logs.stdout)["runs"][0]
    assert run["id"] == answer["run_id"]
    assert run["provider_id"] == ("smol" if mode == "markdown" else "adhoc")


EVIDENCE_QUESTIONS = (
    "How much did Kolomoisky and Bogolyubov steal outright, according to Ukraine's central "
    "bank chief?",
    "What is the Green New Deal for Europe, according to DiEM25?",
    "How many surgical masks were lost at the Kobe hospital?",
)


def test_the_evidence_reaches_smollm2_in_its_2048_token_window(
    llama_server: LocalServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Issue 26's real-model run: 30 capture-dev pages of the retrieval bench in one
    collection, SmolLM2 served with a 2,048-token window. The window is discovered from the
    server (`/props`), and the sentence that answers each question is in the prompt the
    real model was sent (a loopback forwarder records it)."""
    import asyncio

    from laika_host.agent.flows import ask
    from laika_host.llm.config import ProviderConfig
    from laika_host.llm.local_model import CONTEXT_TOKENS
    from laika_host.llm.window import forget
    from laika_host.store import open_store
    from recording_proxy import recording

    from support import bench_module, capture_dev_corpus

    bench = bench_module("retrieval")
    corpus = capture_dev_corpus()
    expected = bench.expectations(corpus)
    questions = [q for q in bench.load_questions() if q["answerable"]]
    asked = [q for q in questions if q["question"] in EVIDENCE_QUESTIONS]
    pages = list(dict.fromkeys([q["page"] for q in asked] + [q["page"] for q in questions]))[:30]
    assert CONTEXT_TOKENS == 2_048
    assert len(asked) == len(EVIDENCE_QUESTIONS)

    async def work(base_url: str) -> list[str]:
        async with open_store(tmp_path / "laika.db") as store:
            for page in pages:
                capture = bench.capture_page(corpus, page, bench.page_url(expected[page]))
                await store.sources.save_capture("Bench", capture)
            provider = ProviderConfig(
                id="smol", kind="openai_compatible", model="smollm2", base_url=base_url
            )
            statuses = []
            for item in asked:
                forget()  # each ask discovers the window again
                # a short reply keeps the run quick; the pack is still fitted to the window
                answer = await ask(
                    store, item["question"], "Bench", provider=provider, max_tokens=96
                )
                statuses.append(answer.status)
            return statuses

    with recording(llama_server.base_url) as proxy:
        statuses = asyncio.run(work(proxy.url + "/v1"))
    assert set(statuses) <= {"ok", "partial", "invalid_output"}, statuses  # the model answered
    assert sum(path.endswith("/props") for path, _ in proxy.received) >= len(asked)
    prompts = [
        " ".join(str(m["content"]) for m in body["messages"]).replace("\\n", " ")
        for body in proxy.bodies("/chat/completions")
    ]
    assert len(prompts) >= len(asked)
    for item in asked:
        evidence = bench.norm(item["evidence"])
        assert any(evidence in bench.norm(prompt) for prompt in prompts), item["question"]
