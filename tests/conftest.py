"""Make `tests/support.py` importable from every test module, and keep every test's Laika
data (database, logs) in its own temporary directory, never in the user's."""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

import store_file_guard

store_file_guard.install()

# No per-example deadline: a property is about correctness, and a 200 ms deadline fails at
# random on a loaded 2-core machine (speed belongs in bench/, linearity in the scaling tests).
settings.register_profile("default", deadline=None)
settings.load_profile("default")
# CI explores the same examples every run (a red build then means a change broke something);
# local runs stay random and keep finding new cases (one found the "!" before a link bug).
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
# `bash tests/run --fast` (the inner loop) explores fewer examples per property; the full run
# keeps the default and every test's own max_examples.
FAST = bool(os.environ.get("LAIKA_FAST_TESTS"))
FAST_EXAMPLES = 20
settings.register_profile("fast", parent=settings(), max_examples=FAST_EXAMPLES)
if FAST:
    settings.load_profile("fast")


@pytest.fixture(autouse=True)
def _no_store_file_opened_beside_sqlite() -> Iterator[None]:
    """Package code that opens a store file this process has open through SQLite drops
    SQLite's locks on it (`store_file_guard`): the test that did it fails, naming the open."""
    store_file_guard.take_violations()
    yield
    found = store_file_guard.take_violations()
    assert not found, "package code opened a store file beside SQLite:\n" + "\n".join(found)


@pytest.fixture(autouse=True)
def _private_laika_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAIKA_HOME", str(tmp_path_factory.mktemp("laika-home")))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """In the inner loop, a property that asks for more examples than FAST_EXAMPLES gets
    FAST_EXAMPLES (the profile alone cannot: a test's own `@settings` wins over it). Hypothesis
    reads a test's settings from this attribute when the test runs; it has no public way to cap
    them. The full run is untouched."""
    if not FAST:
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if isinstance(own, settings) and own.max_examples > FAST_EXAMPLES:
            test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
                own, max_examples=FAST_EXAMPLES
            )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Tests marked `real_llm` need llama-server, built once (minutes) and cached: build it
    here, before the first test, with its progress on the terminal (`laika local-model
    build`), not silently inside a fixture."""
    if session.config.option.collectonly or not any(
        item.get_closest_marker("real_llm") for item in session.items
    ):
        return
    from laika_host.llm.local_model import cached_llama_server

    if cached_llama_server() is not None:
        return
    from support import laika_executable

    capture = session.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print("\nreal_llm tests selected: building llama-server first (cached afterwards)")
        subprocess.run([laika_executable(), "local-model", "build"], check=False)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Let `support` check that a test using a corpus or a browser carries its marker."""
    import support

    support.CURRENT_TEST = item
