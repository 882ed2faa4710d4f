"""Make `tests/support.py` importable from every test module, and keep every test's Laika
data (database, logs) in its own temporary directory, never in the user's."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True)
def _private_laika_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAIKA_HOME", str(tmp_path_factory.mktemp("laika-home")))
