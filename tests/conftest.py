"""Make `tests/support.py` importable from every test module, and keep every test's Laika
data (database, logs) in its own temporary directory, never in the user's."""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# CI explores the same examples every run (a red build then means a change broke something);
# local runs stay random and keep finding new cases (one found the "!" before a link bug).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _private_laika_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAIKA_HOME", str(tmp_path_factory.mktemp("laika-home")))
