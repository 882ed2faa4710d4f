"""A settings reply never carries a key: the model proposing `set_preference` with a key it
was shown had the write refused, but `laika settings --json` (and the panel's
`settings.ask`) printed the key back in `arguments`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import secret_corpus
from laika_host.llm.config import ProviderConfig, save_providers
from laika_host.service.settings import SettingsReply
from tool_chat import model_server

from support import run_laika

planted = st.sampled_from(secret_corpus.PLANTED)


@settings(max_examples=100, deadline=None)
@given(planted, st.sampled_from(["value", "key", "collection", "note"]))
def test_a_reply_never_shows_a_key_in_its_arguments(
    secret: secret_corpus.Planted, name: str
) -> None:
    reply = SettingsReply(
        "failed", "settings.set_preference", {"key": "k", name: secret.text}, "refused"
    )
    shown = json.dumps(reply.to_json(), ensure_ascii=False)
    assert secret.secret not in shown
    assert secret.secret in json.dumps(reply.arguments, ensure_ascii=False)  # only shown redacted


def test_laika_settings_does_not_print_the_key_a_model_proposed(tmp_path: Path) -> None:
    key = secret_corpus.OPENAI
    choice = {"tool": "settings.set_preference", "arguments": {"key": "note", "value": key}}
    server = model_server([json.dumps(choice)])
    try:
        local = ProviderConfig(id="local", kind="openai_compatible", model="m", base_url=server.url)
        save_providers([local], tmp_path / "providers.json")
        env = {**os.environ, "LAIKA_HOME": str(tmp_path)}
        done = run_laika("settings", "remember my note", "--json", "--yes", env=env)
    finally:
        server.close()
    reply = json.loads(done.stdout)
    assert (reply["status"], reply["tool"]) == ("failed", "settings.set_preference")
    assert key not in done.stdout
    assert key not in done.stderr
