"""A loopback server that plays a public site, for tests of the host's own fetches.

The fetcher refuses every loopback address (`laika_host.addresses`, issue #24); without a
network a test has only loopback servers. `judge` treats 127.0.0.1 alone as public and every
other address by the real rule, so 127.0.0.2 (loopback too) still plays the service inside
the user's network. `loopback_is_public` puts it in place of the rule for fetches made in the
test's own process (the CLI and the host in a subprocess use `--allow-private-address` or
the setting `capture.allow_private_addresses` instead)."""

from __future__ import annotations

from pathlib import Path

import pytest

from laika_host.addresses import IPAddress, Refusal, refusal
from laika_host.capture import fetch, fetch_guard

PUBLIC = "127.0.0.1"
"""The address that plays the internet."""
INSIDE = "127.0.0.2"
"""An address that plays the user's own network (refused by the real rule)."""


def judge(address: IPAddress) -> Refusal | None:
    """The real rule, except that 127.0.0.1 is public."""
    return None if str(address) == PUBLIC else refusal(address)


@pytest.fixture
def loopback_is_public(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fetches in this process, and URLs checked before they are queued, judge addresses
    with `judge` (the rule both look up when called)."""
    monkeypatch.setattr(fetch, "refusal", judge)
    monkeypatch.setattr(fetch_guard, "refusal", judge)


def allow_private_addresses(home: Path | None = None) -> None:
    """Turn on the user's setting `capture.allow_private_addresses` in `home`'s registry
    (default: the test's LAIKA_HOME), so that a `laika` command or a host started there may
    fetch from the test's loopback servers, as a user who set it would."""
    from laika_host.config import registry
    from laika_host.config.files import CONFIG_DIR

    registry.mutate(
        {"capture.allow_private_addresses": True},
        who="cli",
        tool="config.set",
        directory=None if home is None else home / CONFIG_DIR,
    )
