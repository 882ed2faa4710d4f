"""A native-messaging host in the middle, for the real-page end-to-end tests: the browser
starts this instead of Laika's launcher (`install_tap` points the host manifest here); it
starts the real launcher, passes every frame on unchanged in both directions, and writes one
JSON line per frame to a log:

- each request the extension sends, checked against the committed schema files
  (`schema/native/request.schema.json`, then `types/<type>.payload.schema.json`): `problems`
  lists every violation, so a payload the host would refuse is named even before its reply;
- each final reply (chunked ones joined), with its outcome (`ok`, or the error's code and
  message), so a test also sees what the host itself refused.

Times are `time.time()` seconds. Run as `python native_tap.py LOG SCHEMA_DIR LAUNCHER ARGS...`;
it never writes to stdout anything but the host's frames.
"""

from __future__ import annotations

import contextlib
import json
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

HEADER = struct.Struct("=I")  # the browsers' native byte order, as the host reads it


def read_frame(stream: IO[bytes]) -> bytes | None:
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (length,) = HEADER.unpack(header)
    body = stream.read(length)
    return body if len(body) == length else None


def write_frame(stream: IO[bytes], body: bytes) -> None:
    stream.write(HEADER.pack(len(body)) + body)
    stream.flush()


class Checker:
    """The request envelope's schema and each type's payload schema, compiled once."""

    def __init__(self, schema_dir: Path) -> None:
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource

        self.dir = schema_dir
        resources = []
        for path in schema_dir.rglob("*.schema.json"):
            contents = json.loads(path.read_text(encoding="utf-8"))
            resources.append((contents["$id"], Resource.from_contents(contents)))
        self.registry = Registry().with_resources(resources)
        self.validator_class = Draft202012Validator
        self.cache: dict[str, Any] = {}

    def validator(self, relative: str) -> Any:
        if relative not in self.cache:
            path = self.dir / relative
            if not path.is_file():
                self.cache[relative] = None
            else:
                schema = json.loads(path.read_text(encoding="utf-8"))
                self.cache[relative] = self.validator_class(schema, registry=self.registry)
        return self.cache[relative]

    def problems(self, frame: Any) -> list[str]:
        found = [
            f"{'.'.join(map(str, error.absolute_path)) or 'request'}: {error.message[:300]}"
            for error in self.validator("request.schema.json").iter_errors(frame)
        ]
        if found or not isinstance(frame, dict):
            return found
        payload = self.validator(f"types/{frame['type']}.payload.schema.json")
        if payload is None:
            return [f"type: the host has no message type {frame['type']!r}"]
        return [
            f"payload.{'.'.join(map(str, error.absolute_path))}: {error.message[:300]}"
            for error in payload.iter_errors(frame.get("payload", {}))
        ]


class Log:
    def __init__(self, path: Path) -> None:
        self.file = path.open("a", encoding="utf-8")
        self.lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        with self.lock:
            self.file.write(json.dumps(record) + "\n")
            self.file.flush()


def to_host(checker: Checker, log: Log, host: IO[bytes]) -> None:
    """The browser's frames: logged with their schema check, passed on."""
    while (body := read_frame(sys.stdin.buffer)) is not None:
        seen = time.time()
        try:
            frame = json.loads(body)
            record = {
                "dir": "request",
                "t": seen,
                "id": frame.get("id"),
                "type": frame.get("type"),
                "problems": checker.problems(frame),
            }
        except (ValueError, AttributeError, KeyError, TypeError) as error:
            record = {"dir": "request", "t": seen, "problems": [f"not a request: {error}"]}
        try:
            write_frame(host, body)
        except (BrokenPipeError, OSError):
            break
        log.write(record)
    with contextlib.suppress(OSError):
        host.close()


def to_browser(log: Log, host: IO[bytes]) -> None:
    """The host's frames: passed on at once, final replies logged with their outcome."""
    chunks: dict[Any, list[str]] = {}
    while (body := read_frame(host)) is not None:
        write_frame(sys.stdout.buffer, body)
        seen = time.time()
        frame = json.loads(body)
        if "chunk" in frame:
            parts = chunks.setdefault(frame["id"], [])
            parts.append(frame["data"])
            if frame["chunk"]["index"] < frame["chunk"]["count"]:
                continue
            frame = json.loads("".join(chunks.pop(frame["id"])))
        if "ok" not in frame:
            continue  # a stream event
        record: dict[str, Any] = {"dir": "reply", "t": seen, "id": frame.get("id")}
        if frame["ok"]:
            record["outcome"] = "ok"
        else:
            error = frame.get("error") or {}
            record.update(outcome=error.get("code"), message=str(error.get("message"))[:500])
        log.write(record)


def main() -> int:
    log_path, schema_dir, launcher, *args = sys.argv[1:]
    log = Log(Path(log_path))
    checker = Checker(Path(schema_dir))
    host = subprocess.Popen([launcher, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert host.stdin is not None
    assert host.stdout is not None
    threading.Thread(target=to_host, args=(checker, log, host.stdin), daemon=True).start()
    to_browser(log, host.stdout)
    return host.wait()


if __name__ == "__main__":
    sys.exit(main())
