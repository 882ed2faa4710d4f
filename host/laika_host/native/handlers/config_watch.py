"""Tell a connected extension when the settings change, whoever changed them (a CLI, another
port, a rule): a `config.changed` host event, found by a cheap poll (one `stat`) of the
registry file, since a desktop companion has no message server to publish on."""

from __future__ import annotations

import asyncio
import logging
import os

from ...config.watch import RegistryWatcher
from ..transport.session import Session

log = logging.getLogger("laika.config")
POLL_SECONDS = 1.0
"""How often the registry file is checked (`LAIKA_CONFIG_POLL_SECONDS` overrides)."""


def poll_seconds() -> float:
    try:
        return max(0.05, float(os.environ.get("LAIKA_CONFIG_POLL_SECONDS", POLL_SECONDS)))
    except ValueError:
        return POLL_SECONDS


async def watch_config(session: Session) -> None:
    """Until cancelled: a `config.changed {version, paths}` event after each change."""
    watcher = RegistryWatcher()
    interval = poll_seconds()
    while True:
        await asyncio.sleep(interval)
        try:
            changed = watcher.poll()
        except OSError as error:  # e.g. permissions changed under us: keep serving, say why
            log.warning("settings not checked: %s", error)
            continue
        if changed is not None:
            log.info("settings changed: version %d, %s", changed.version, changed.paths)
            session.send_host_event("config.changed", changed.to_json())
