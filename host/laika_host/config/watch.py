"""Noticing a change made by another process, without a server: compare the registry file's
(mtime_ns, size, inode) with the last one seen, and only then re-read it and diff."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import dotted
from .files import config_dir, registry_path
from .registry import READ_ONLY, RegistryFileError, load, signature
from .schema import Registry

log = logging.getLogger("laika.config")


@dataclass(frozen=True)
class Changed:
    version: int
    paths: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "paths": self.paths}


class RegistryWatcher:
    """`poll()` says what changed since the last poll (None: nothing, or no registry yet)."""

    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory or config_dir()
        self._stamp = signature(registry_path(self._directory))
        self._seen: dict[str, Any] = Registry().model_dump(mode="json")  # until one exists
        if self._stamp is not None:
            try:
                self._seen = self._read()
            except RegistryFileError as error:
                log.warning("settings not read: %s", error)

    def poll(self) -> Changed | None:
        stamp = signature(registry_path(self._directory))
        if stamp is None or stamp == self._stamp:
            return None
        self._stamp = stamp
        try:
            current = self._read()
        except RegistryFileError as error:  # reported once per edit of the file
            log.warning("settings not re-read: %s", error)
            return None
        paths = [p for p in dotted.changed_paths(self._seen, current) if p not in READ_ONLY]
        if not paths and current["version"] == self._seen["version"]:
            return None  # created with the defaults: nothing to tell
        self._seen = current
        return Changed(int(current["version"]), paths)

    def _read(self) -> dict[str, Any]:
        return load(self._directory).model_dump(mode="json")
