"""The settings registry (issue #17): real files, real git history (dulwich), real processes.

- any sequence of set / revert leaves the registry equal to a model, with one commit per
  mutation, and a revert restores the value before its commit unless a later one changed it;
- concurrent writer processes never lose an update, and a reader never sees a partial file;
- providers.json and policy.json migrate once; keys are refused; a tool's ACL holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import secret_corpus
from laika_host.config import history, registry
from laika_host.config.registry import (
    REMOVE,
    ConfigValueError,
    OutsideAclError,
    RegistryFileError,
    RevertConflictError,
)
from laika_host.config.secrets import SecretValueError
from laika_host.config.watch import RegistryWatcher
from laika_host.llm.errors import LlmError

from support import REPO, laika_executable, run_laika

PREFERENCES = ["user.preferences.a", "user.preferences.b", "user.preferences.c"]
THEME = "ui.theme"
pref_values = st.one_of(
    st.booleans(),
    st.integers(-1000, 1000),
    st.text(alphabet="abcdefgh xyz", max_size=8),
)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.sampled_from(PREFERENCES), pref_values),
        st.tuples(st.just("remove"), st.sampled_from(PREFERENCES), st.none()),
        st.tuples(st.just("set"), st.just(THEME), st.sampled_from(["system", "light", "dark"])),
        st.tuples(st.just("revert"), st.integers(0, 20), st.none()),
    ),
    max_size=8,
)
ABSENT = object()


def _same(first: Any, second: Any) -> bool:
    return json.dumps(first, sort_keys=True, default=id) == json.dumps(
        second, sort_keys=True, default=id
    )


def _value(directory: Path, path: str) -> Any:
    from laika_host.config import dotted

    return dotted.get(registry.document(directory), path, ABSENT)


@settings(max_examples=25)
@given(operations)
def test_any_sequence_of_changes_matches_a_model(steps: list[tuple[str, Any, Any]]) -> None:
    """The model: path -> value, and per commit the (before, after) of the paths it changed.
    Revert of commit k: refused when a path it changed now differs from its value after k;
    else each such path gets its value before k back."""
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary) / "config"
        model: dict[str, Any] = {THEME: "system"}
        commits: list[tuple[str, dict[str, tuple[Any, Any]]]] = []
        for kind, target, value in steps:
            if kind == "revert":
                if not commits:
                    continue
                commit_id, changed = commits[target % len(commits)]
                conflict = any(
                    not _same(model.get(p, ABSENT), after) for p, (_, after) in changed.items()
                )
                if conflict:
                    with pytest.raises(RevertConflictError):
                        registry.revert(commit_id, who="cli", directory=directory)
                    continue
                made = registry.revert(commit_id, who="cli", directory=directory)
                undone = {p: (after, before) for p, (before, after) in changed.items()}
                for path, (before, _) in changed.items():
                    if before is ABSENT:
                        model.pop(path, None)
                    else:
                        model[path] = before
                assert sorted(made.paths) == sorted(undone)
                commits.append((made.commit, undone))
                continue
            new = REMOVE if kind == "remove" else value
            old = model.get(target, ABSENT)
            made = registry.mutate({target: new}, who="cli", tool="config.set", directory=directory)
            after = ABSENT if kind == "remove" else value
            if after is ABSENT:
                model.pop(target, None)
            else:
                model[target] = after
            changed = {} if _same(old, after) else {target: (old, after)}
            commits.append((made.commit, changed))
        for path in [*PREFERENCES, THEME]:
            assert _same(_value(directory, path), model.get(path, ABSENT)), path
        entries = history.log(directory) if commits else []
        assert len(entries) == (len(commits) + 1 if commits else 0)
        assert [entry.commit for entry in entries[: len(commits)]] == [
            commit_id for commit_id, _ in reversed(commits)
        ]
        if commits:
            assert registry.load(directory).version == len(commits)


def test_every_commit_names_the_tool_the_path_and_who_asked(tmp_path: Path) -> None:
    directory = tmp_path / "config"
    registry.mutate(
        {"user.preferences.lang": "fr"}, who="panel", tool="config.set", directory=directory
    )
    registry.mutate(
        {"ui.theme": "dark"}, who="model", tool="settings.set_theme", directory=directory
    )
    newest, older, created = history.log(directory)
    assert newest.message.splitlines()[0] == "settings.set_theme: ui.theme (asked by model)"
    assert older.message.splitlines()[0] == "config.set: user.preferences.lang (asked by panel)"
    assert "created" in created.message


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from laika_host.config import registry
    directory, writer, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    for n in range(count):
        registry.mutate({f"user.preferences.w{writer}_{n}": n}, who="cli", tool="config.set",
                        directory=directory)
    """
)
READER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    path, stop = Path(sys.argv[1]), Path(sys.argv[2])
    reads = 0
    while not stop.exists() or reads == 0:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue
        json.loads(raw)  # a partial file would fail here
        reads += 1
    print(reads)
    """
)


def test_concurrent_writers_lose_nothing_and_readers_never_see_a_partial_file(
    tmp_path: Path,
) -> None:
    """4 processes x 40 changes of different keys: a read-modify-write without the lock would
    drop keys; a write without the rename would let the reader parse half a file."""
    directory = tmp_path / "config"
    registry.load(directory)
    stop = tmp_path / "stop"
    env = {**os.environ, "PYTHONPATH": str(REPO / "host")}
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(directory / "registry.json"), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(directory), str(w), "40"], env=env)
        for w in range(4)
    ]
    assert [w.wait(timeout=300) for w in writers] == [0, 0, 0, 0]
    stop.touch()
    out, _ = reader.communicate(timeout=60)
    assert reader.returncode == 0
    assert int(out) > 0
    preferences = registry.load(directory).user.preferences
    assert preferences == {f"w{w}_{n}": n for w in range(4) for n in range(40)}
    assert registry.load(directory).version == 160
    assert len(history.log(directory)) == 161


def test_laika_config_set_from_several_processes_then_revert() -> None:
    """The real command, 4 at once; then `revert` restores the earlier value."""
    home = Path(os.environ["LAIKA_HOME"])
    assert run_laika("config", "set", "ui.theme", "light").returncode == 0
    runs = [
        subprocess.Popen(
            [laika_executable(), "config", "set", f"user.preferences.p{i}", str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(4)
    ]
    assert [run.wait(timeout=120) for run in runs] == [0, 0, 0, 0]
    document = json.loads((home / "config" / "registry.json").read_text())
    assert document["user"]["preferences"] == {f"p{i}": i for i in range(4)}
    changed = run_laika("config", "set", "ui.theme", "dark", "--json")
    commit = json.loads(changed.stdout)["commit"]
    listed = json.loads(run_laika("config", "history", "ui.theme", "--json").stdout)["commits"]
    assert [item["commit"] for item in listed][:2] == [commit, listed[1]["commit"]]
    assert len(listed) == 3  # created, light, dark
    assert run_laika("config", "revert", commit[:10]).returncode == 0
    assert json.loads(run_laika("config", "get", "ui.theme").stdout) == "light"
    everything = json.loads(run_laika("config", "history", "--json").stdout)["commits"]
    assert len(everything) == 1 + 1 + 4 + 1 + 1
    assert set(everything[0]) == {"commit", "message", "time"}


def test_a_revert_that_a_later_change_overrides_is_refused_clearly() -> None:
    run_laika("config", "set", "user.preferences.color", "red")
    first = json.loads(run_laika("config", "history", "--json").stdout)["commits"][0]["commit"]
    run_laika("config", "set", "user.preferences.color", "blue")
    refused = run_laika("config", "revert", first)
    assert refused.returncode == 1
    assert "later change also set user.preferences.color" in refused.stderr
    assert json.loads(run_laika("config", "get", "user.preferences.color").stdout) == "blue"
    unknown = run_laika("config", "revert", "abcdef12")
    assert unknown.returncode == 1
    assert "laika config history" in unknown.stderr


def test_set_reads_json_values_and_falls_back_to_text() -> None:
    for text, expected in [
        ("true", True),
        ("12", 12),
        ('"12"', "12"),
        ("hello there", "hello there"),
    ]:
        assert run_laika("config", "set", "user.preferences.x", text).returncode == 0
        assert json.loads(run_laika("config", "get", "user.preferences.x").stdout) == expected
    refused = run_laika("config", "set", "capture.max_charz", "5")
    assert refused.returncode == 1
    assert "capture.max_charz" in refused.stderr


KEYS = [
    secret_corpus.OPENAI,
    secret_corpus.ANTHROPIC,
    secret_corpus.GITHUB_CLASSIC,
    secret_corpus.SLACK_BOT,
    secret_corpus.AWS_ACCESS,
    secret_corpus.GOOGLE_KEY,
    secret_corpus.HUGGINGFACE,
    secret_corpus.JWT,
]


@settings(max_examples=30)
@given(
    st.sampled_from(KEYS),
    st.sampled_from(
        ["user.preferences.note", "user.preferences.api_key", "capture.default_collection"]
    ),
    st.sampled_from(["", " ", "my key is ", "\n"]),
)
def test_keys_are_refused_naming_the_environment_variable_alternative(
    key: str, path: str, padding: str
) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary) / "config"
        registry.load(directory)
        before = (directory / "registry.json").read_bytes()
        with pytest.raises(SecretValueError) as refused:
            registry.mutate(
                {path: padding + key}, who="cli", tool="config.set", directory=directory
            )
        assert "environment variable" in str(refused.value)
        assert key not in str(refused.value)
        assert (directory / "registry.json").read_bytes() == before
        assert len(history.log(directory)) == 1


def test_a_key_given_to_the_command_is_never_written() -> None:
    refused = run_laika("config", "set", "user.preferences.token", secret_corpus.OPENAI)
    assert refused.returncode == 1
    assert "environment variable" in refused.stderr
    config = Path(os.environ["LAIKA_HOME"]) / "config"
    for path in config.rglob("*"):
        if path.is_file():
            assert secret_corpus.OPENAI.encode() not in path.read_bytes()


def test_a_tool_may_write_only_its_declared_paths(tmp_path: Path) -> None:
    directory = tmp_path / "config"
    allowed = ["providers.default"]
    registry.mutate(
        {"providers.default": "offline"},
        who="model",
        tool="settings.set_default_provider",
        allowed_paths=allowed,
        directory=directory,
    )
    for path in ["policy.rules", "providers", "providers.items", "user.preferences.x"]:
        with pytest.raises(OutsideAclError) as refused:
            registry.mutate(
                {path: []},
                who="model",
                tool="settings.set_default_provider",
                allowed_paths=allowed,
                directory=directory,
            )
        assert "settings.set_default_provider" in str(refused.value)
    assert registry.load(directory).providers.default == "offline"
    assert len(history.log(directory)) == 2
    with pytest.raises(ConfigValueError):
        registry.mutate({"version": 99}, who="cli", tool="config.set", directory=directory)


PROVIDERS = {
    "providers": [
        {
            "id": "local",
            "kind": "openai_compatible",
            "model": "m",
            "base_url": "http://127.0.0.1:8080/v1",
        },
        {"id": "cloud", "kind": "openai", "model": "gpt-4o", "api_key_env": "OPENAI_API_KEY"},
    ],
    "default": "cloud",
}
POLICY = {"rules": [{"id": "mine", "decision": "allow", "when": {"tool": "collection.create"}}]}


def test_providers_and_policy_files_migrate_once(tmp_path: Path) -> None:
    (tmp_path / "providers.json").write_text(json.dumps(PROVIDERS))
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    directory = tmp_path / "config"
    loaded = registry.load(directory)
    assert [p.id for p in loaded.providers.items] == ["local", "cloud"]
    assert loaded.providers.default == "cloud"
    assert [r.id for r in loaded.policy.rules] == ["mine"]
    stored = json.loads((directory / "registry.json").read_text())
    assert stored["policy"] == POLICY
    assert "migrated providers.json, policy.json" in history.log(directory)[0].message
    # once: the old files stay as they were, and a later edit of them changes nothing
    assert json.loads((tmp_path / "providers.json").read_text()) == PROVIDERS
    (tmp_path / "providers.json").write_text(json.dumps({"providers": []}))
    registry.mutate({"ui.theme": "dark"}, who="cli", tool="config.set", directory=directory)
    assert [p.id for p in registry.load(directory).providers.items] == ["local", "cloud"]
    assert len(history.log(directory)) == 2


MIGRATE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from laika_host.config import registry
    print(registry.load(Path(sys.argv[1])).version)
    """
)


def test_processes_starting_together_migrate_exactly_once(tmp_path: Path) -> None:
    (tmp_path / "providers.json").write_text(json.dumps(PROVIDERS))
    env = {**os.environ, "PYTHONPATH": str(REPO / "host")}
    runs = [
        subprocess.Popen([sys.executable, "-c", MIGRATE, str(tmp_path / "config")], env=env)
        for _ in range(4)
    ]
    assert [run.wait(timeout=120) for run in runs] == [0, 0, 0, 0]
    assert len(history.log(tmp_path / "config")) == 1


def test_a_bad_providers_file_stops_the_migration_and_is_kept(tmp_path: Path) -> None:
    entry = {"id": "bad", "kind": "openai_compatible", "model": "m"}
    bad = {
        "providers": [{**entry, "base_url": "http://10.1.2.3:8000/v1", "api_key_env": "LAIKA_KEY"}]
    }
    (tmp_path / "providers.json").write_text(json.dumps(bad))
    with pytest.raises(LlmError) as refused:
        registry.load(tmp_path / "config")
    assert "providers.json" in str(refused.value)
    assert not (tmp_path / "config" / "registry.json").exists()
    (tmp_path / "providers.json").write_text(json.dumps(PROVIDERS))  # fixed: the next run migrates
    assert registry.load(tmp_path / "config").providers.default == "cloud"


def test_a_damaged_registry_is_named_with_the_fix_and_kept(tmp_path: Path) -> None:
    directory = tmp_path / "config"
    registry.mutate({"ui.theme": "dark"}, who="cli", tool="config.set", directory=directory)
    (directory / "registry.json").write_text('{"version": 1, "ui": {')
    with pytest.raises(RegistryFileError) as refused:
        registry.mutate({"ui.theme": "light"}, who="cli", tool="config.set", directory=directory)
    assert str(directory / "registry.json") in str(refused.value)
    assert "git -C" in str(refused.value)
    assert (directory / "registry.json").read_text() == '{"version": 1, "ui": {'


def test_a_watcher_sees_another_process_change_once(tmp_path: Path) -> None:
    """What a running host does before use: one stat, a re-read only when the file changed."""
    home = tmp_path
    directory = home / "config"
    registry.load(directory)
    watcher = RegistryWatcher(directory)
    assert watcher.poll() is None
    done = run_laika(
        "config", "set", "providers.default", "offline", env={**os.environ, "LAIKA_HOME": str(home)}
    )
    assert done.returncode == 0, done.stderr
    changed = watcher.poll()
    assert changed is not None
    assert (changed.version, changed.paths) == (1, ["providers.default"])
    assert watcher.poll() is None
    assert registry.load(directory).providers.default == "offline"  # the cached copy is renewed
