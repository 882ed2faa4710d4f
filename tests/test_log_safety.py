"""What the extension sends is logged redacted and escaped: a bearer token or cookie in an id,
a `host.log` message or its context never reaches host.log or stderr, and a CR/LF in them
cannot forge a log line (every line is one record of this host process)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from native_client import Client, HostProcess, raw_frame

TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r"
COOKIE = "sessionid=Zx81kk29aa91QmL7"
FORGED = "\n2026-11-22 10:00:00,000 INFO pid=1 laika.host: forged line\r\n"
RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ pid=(\d+) laika\.")


def test_secrets_and_line_breaks_from_the_extension_never_reach_the_log(tmp_path: Path) -> None:
    host = HostProcess(tmp_path)
    client = Client(host)
    try:
        hostile = f"Authorization: Bearer {TOKEN} Cookie: {COOKIE}{FORGED}"
        pinged = host.request({"id": hostile, "type": "host.ping", "payload": {}})
        assert pinged["ok"], pinged
        for level in ("info", "warning"):  # warnings also go to stderr
            logged = client.call(
                "host.log",
                {"level": level, "message": hostile, "context": {"cookie": COOKIE, "x": FORGED}},
            )
            assert logged["ok"], logged
        host.send_raw(
            raw_frame(f'{{"id": "{TOKEN}", "type": "host.ping", "Cookie: {COOKIE}'.encode())
        )
        assert host.recv()["ok"] is False
        pid = host.proc.pid
        assert host.close() == 0
    finally:
        host.kill()
    log = (tmp_path / "logs" / "host.log").read_text(encoding="utf-8")
    for text in (log, host.stderr):
        assert TOKEN not in text
        assert "Zx81kk29aa91QmL7" not in text
        lines = text.splitlines()
        assert lines
        assert all(RECORD.match(line) and RECORD.match(line)[1] == str(pid) for line in lines), text
    assert "forged line" in log  # kept, escaped, inside the records that carried it


@given(parts=st.lists(st.text(), min_size=1, max_size=3), failed=st.booleans())
def test_any_record_is_one_line_without_control_characters(parts: list[str], failed: bool) -> None:
    from laika_host.native.transport.logsetup import LOG_FORMAT, SafeFormatter

    error = None
    if failed:  # a traceback (with the message in it) is part of the same record
        try:
            raise ValueError(parts[0])
        except ValueError as caught:
            error = (ValueError, caught, caught.__traceback__)
    template = " ".join("%s" for _ in parts)
    record = logging.LogRecord("laika.x", logging.INFO, __file__, 1, template, tuple(parts), error)
    line = SafeFormatter(LOG_FORMAT).format(record)
    assert len(line.splitlines()) == 1
    assert not re.search(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]", line)
