"""The extension's pure modules under Node's own test runner (`node --test`).

The JS tests live in `tests/js/*.test.mjs`; their test tools (a DOM, a property-test library)
are npm devDependencies of `tests/js/package.json`, installed from its lock file on first use
and again whenever the lock file changes.
Node is Debian's `nodejs` (`.ci/run` installs it): in CI a missing node fails, elsewhere the
test is skipped with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

import pytest

from support import REPO

JS_TESTS = REPO / "tests" / "js"
SUMMARY = re.compile(r"^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$", re.MULTILINE)
"""The closing counts of Node's TAP reporter (stable across Node 20 to 24)."""


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{tool} is not installed; .ci/run must apt-get install nodejs npm")
    pytest.skip(f"{tool} is not installed here (CI installs it; apt-get install nodejs npm)")


def _install_test_tools() -> None:
    """`npm ci` from the lock file when node_modules is missing or was installed from another
    lock file (a merge that adds a test tool must not leave a stale node_modules)."""
    lock = JS_TESTS / "package-lock.json"
    stamp = JS_TESTS / "node_modules" / ".laika-lock"
    wanted = lock.read_text(encoding="utf-8") if lock.is_file() else ""
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        return
    npm = _need("npm")
    command = [npm, "ci"] if wanted else [npm, "install"]
    done = subprocess.run(
        [*command, "--no-audit", "--no-fund"],
        cwd=JS_TESTS,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed in {JS_TESTS}:\n{done.stdout}\n{done.stderr}")
    stamp.write_text(wanted, encoding="utf-8")


def _test_files() -> list[str]:
    """Explicit paths: Node 20 reads a directory argument, Node 22+ reads globs."""
    return sorted(str(path.relative_to(REPO)) for path in JS_TESTS.glob("*.test.mjs"))


@pytest.mark.slow  # > 5 s here
def test_node_tests_pass() -> None:
    node = _need("node")
    _install_test_tools()
    files = _test_files()
    assert files, f"no *.test.mjs in {JS_TESTS}"
    started = time.monotonic()
    done = subprocess.run(
        [node, "--test", "--test-reporter=tap", *files],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    elapsed = time.monotonic() - started
    output = f"{done.stdout}\n{done.stderr}"
    counts = {name: int(value) for name, value in SUMMARY.findall(done.stdout)}
    assert done.returncode == 0, f"node --test failed ({counts}):\n{output[-20000:]}"
    assert counts.get("tests", 0) > 0, f"node --test ran no test:\n{output[-5000:]}"
    assert counts.get("fail", 0) == counts.get("cancelled", 0) == 0, f"{counts}:\n{output}"
    assert counts.get("pass", 0) > 0, f"node --test passed no test ({counts}):\n{output}"
    print(f"node --test: {counts['tests']} tests in {len(files)} files, {elapsed:.1f} s")
