"""Which variable a provider's key may come from and where it may go (`llm/key_policy.py`),
checked through the one service both `laika models` and the host's `models.*` call
(`llm/manage.py`), and through a real host: any `key_env`, any `base_url`, any id.

- a key is read only from a variable named *_API_KEY or LAIKA_*: another secret of the
  environment (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN) never reaches a server;
- a key goes only over https or to loopback;
- a base_url with a user name or password is refused everywhere (add, providers.json);
- no models.* payload makes the host answer `internal`.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from laika_host.llm import manage
from laika_host.llm.config import ProviderConfig, load_providers
from laika_host.llm.errors import LlmError
from laika_host.llm.key_policy import is_loopback

from llm_servers import ProviderServer, Reply, closed_port_url
from native_client import Client, HostProcess

SECRET = "s3cr3t-" + "Vq7" * 10
FIXED = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

env_names = st.one_of(
    st.sampled_from(
        ["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "HOME", "PATH", "SSH_AUTH_SOCK", "LAIKA_",
         "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GROQ_API_KEY", "LAIKA_MY_KEY", "_API_KEY",
         "MY_OPENAI_KEY", "API_KEY", "X_API_KEY_2", "laika_key", "LAIKA_HOME"]
    ),
    st.text(string.ascii_uppercase + string.digits + "_", min_size=1, max_size=20),
    st.text(string.ascii_uppercase + "_", max_size=12).map(lambda s: s + "_API_KEY"),
    st.text(string.ascii_uppercase + "_", max_size=12).map(lambda s: "LAIKA_" + s),
).filter(lambda name: name != "LAIKA_HOME")  # fmt: skip
"""LAIKA_HOME is left out: these tests set the variable, and it is where the data lives."""


def meant_as_key(name: str) -> bool:
    """The rule, restated: a variable the host may read a model key from."""
    valid = name[:1] not in string.digits and all(c.isalnum() or c == "_" for c in name)
    return (
        valid
        and name.isascii()
        and (name.endswith("_API_KEY") or (name.startswith("LAIKA_") and len(name) > 6))
    )


def add(kind: str, *, base_url: str, key_env: str | None) -> ProviderConfig | str:
    """The provider `add` saved, or its refusal's message."""
    try:
        return manage.add_provider("p", kind, "m", base_url=base_url, api_key_env=key_env)[0]
    except manage.ProviderSettingsError as error:
        return str(error)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LAIKA_HOME", str(tmp_path))
    return tmp_path


@pytest.fixture(scope="module")
def server() -> Iterator[ProviderServer]:
    body = json.dumps({"data": [{"id": "m"}]})
    provider_server = ProviderServer(
        [Reply(content_type="application/json", chunks=[body])], intercept_discovery=False
    )
    yield provider_server
    provider_server.close()


@FIXED
@given(name=env_names, kind=st.sampled_from(["openai", "openai_compatible", "anthropic"]))
def test_a_key_is_read_only_from_a_variable_meant_as_one(
    home: Path, server: ProviderServer, monkeypatch: pytest.MonkeyPatch, name: str, kind: str
) -> None:
    """Every variable holds the secret; only a *_API_KEY or LAIKA_* one may reach the server."""
    monkeypatch.setenv(name, SECRET)
    seen = len(server.received)
    added = add(kind, base_url=server.url, key_env=name)
    if isinstance(added, str):
        assert not meant_as_key(name)
        assert "*_API_KEY" in added or "not an environment variable name" in added
        return
    assert meant_as_key(name)
    checked = manage.test_provider("p")
    assert checked.answers, checked.detail
    sent = server.received[seen:]
    assert sent, "the probe reached the server"
    assert SECRET in json.dumps([r.headers for r in sent])


local_hosts = ["127.0.0.1", "localhost", "[::1]", "LOCALHOST", "127.0.0.9", "evil.invalid",
               "[::1", "exa mple.invalid", "a\\b.invalid", "", "xn--nxasmq6b.invalid",
               "-bad-.invalid"]  # fmt: skip
"""Hosts a probe may contact here: this machine, or names that never resolve (RFC 6761)."""


def urls_on(hosts: list[str]) -> st.SearchStrategy[str]:
    return st.builds(
        "{}{}{}{}{}".format,
        st.sampled_from(["http://", "https://", "HTTPS://", "ftp://", "", "http:/", "//"]),
        st.sampled_from(["", "bob:sk-live-x@", "bob@", ":pw@", "@", "a%40b:c@"]),
        st.sampled_from(hosts),
        st.sampled_from(["", ":1", ":0", ":99999", ":-1", ":abc", ":65535"]),
        st.sampled_from(["", "/", "/v1", "/v1?key=x", "/#f", "/a b", "/%zz", "/@x"]),
    )


base_urls = st.one_of(
    urls_on([*local_hosts, "10.0.0.5", "api.example.test", "127.1", "[fe80::1]"]),
    st.text(max_size=40),
)
key_envs = st.one_of(st.none(), env_names)
kinds = st.sampled_from(
    ["openai", "openrouter", "anthropic", "ollama", "ollama_cloud", "openai_compatible"]
)


@FIXED
@given(base_url=base_urls, key_env=key_envs, kind=kinds)
def test_what_add_accepts_keeps_keys_safe_and_every_test_answers(
    home: Path, base_url: str, key_env: str | None, kind: str
) -> None:
    """Whatever add accepts: no user info, a host httpx can reach, and a key (if any) only
    over https or to loopback. Whatever it refuses, it says why. `test` always answers."""
    provider = add(kind, base_url=base_url, key_env=key_env)
    if isinstance(provider, str):
        assert provider.strip()
        return
    url = httpx.URL(provider.url)
    assert not url.userinfo
    assert "@" not in provider.url.split("//", 1)[1].split("/", 1)[0]
    assert url.scheme in ("http", "https")
    assert url.host
    if provider.key_env:
        assert meant_as_key(provider.key_env)
        assert url.scheme == "https" or is_loopback(url.host)
    assert load_providers() == [provider]  # what was saved loads again
    if (url.scheme == "http" and is_loopback(url.host)) or url.host.endswith(".invalid"):
        checked = manage.test_provider("p")  # no network beyond this machine
        assert isinstance(checked.answers, bool)
        assert checked.detail


@pytest.mark.parametrize(
    "entry",
    [
        {"base_url": "https://bob:sk-live-x@api.example.test/v1"},
        {"base_url": "http://10.1.2.3:8000/v1", "api_key_env": "LAIKA_KEY"},
        {"base_url": "http://127.0.0.1:1/v1", "api_key_env": "AWS_SECRET_ACCESS_KEY"},
    ],
)
def test_a_providers_file_these_rules_refuse_is_a_clear_error(
    home: Path, entry: dict[str, str]
) -> None:
    """A hand-edited providers.json is held to the same rules: the error names the file,
    the provider and the fix, for the CLI, the host and a chat alike."""
    document = {"providers": [{"id": "bad", "kind": "openai_compatible", "model": "m", **entry}]}
    (home / "providers.json").write_text(json.dumps(document))
    with pytest.raises(LlmError) as raised:
        load_providers()
    assert "providers.json" in raised.value.message
    assert "'bad'" in raised.value.message
    with pytest.raises(manage.ProviderSettingsError):
        manage.list_providers()


def test_a_key_is_not_read_for_an_override_that_would_leak_it(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`model_copy` skips validation, so `api_key()` checks again before reading."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    fine = ProviderConfig(id="p", kind="openai", model="m")
    for update in (
        {"api_key_env": "AWS_SECRET_ACCESS_KEY"},
        {"base_url": "http://10.0.0.5/v1"},
    ):
        with pytest.raises(LlmError, match=r"refused|unencrypted"):
            fine.model_copy(update=update).api_key()
    assert fine.api_key() == SECRET


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    process = HostProcess(
        tmp_path_factory.mktemp("host"),
        env={"AWS_SECRET_ACCESS_KEY": SECRET, "LAIKA_TEST_API_KEY": SECRET},
    )
    yield Client(process)
    process.kill()


ids = st.one_of(st.sampled_from(["p", "offline", "q.1"]), st.text(max_size=70))


@settings(deadline=None, max_examples=80)
@example(base_url="https://[::1", key_env=None, kind="openai_compatible", provider_id="p")
@example(base_url="http://a:99999", key_env=None, kind="openai_compatible", provider_id="p")
@given(
    base_url=st.one_of(urls_on(local_hosts), st.just(closed_port_url())),
    key_env=key_envs,
    kind=st.one_of(kinds, st.text(max_size=10)),
    provider_id=ids,
)
def test_no_models_payload_makes_the_host_fail_internally(
    host: Client, base_url: str, key_env: str | None, kind: str, provider_id: str
) -> None:
    payload: dict[str, Any] = {"id": provider_id, "kind": kind, "model": "m", "base_url": base_url}
    if key_env is not None:
        payload["key_env"] = key_env
    replies = [host.call("models.add", payload)]
    target = {"id": provider_id}
    if replies[0]["ok"]:
        replies.append(host.call("models.test", target))
    replies += [
        host.call("models.list"),
        host.call("models.set_default", target),
        host.call("models.remove", target),
    ]
    for reply in replies:
        assert reply["ok"] or reply["error"]["code"] in ("bad_request", "not_found"), reply
        assert SECRET not in json.dumps(reply)


def test_probe_answers_an_unparsable_url_as_a_failed_probe() -> None:
    """A providers.json from before these rules could hold a URL httpx cannot parse; the
    probe answers `answers: false` (InvalidURL is no httpx.HTTPError)."""
    from laika_host.llm.probe import probe

    broken = ProviderConfig.model_construct(
        id="p", kind="openai_compatible", model="m", base_url="https://[::1", api_key_env=None
    )
    with httpx.Client() as client:
        found = probe(broken, client)
    assert not found.answers
    assert "InvalidURL" in found.detail
