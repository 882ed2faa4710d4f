"""The peer for bench/native_host.py: the least a Python native-messaging host can be.

Blocking reads, no asyncio, no validation: answers every frame with a fixed pong. What it
costs is what Python and the pipes cost; anything above it is ours.
"""

import json
import struct
import sys

HEADER = struct.Struct("=I")
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
while header := stdin.read(4):
    (length,) = HEADER.unpack(header)
    request = json.loads(stdin.read(length))
    body = json.dumps({"id": request.get("id"), "ok": True, "result": {"pong": True}}).encode()
    stdout.write(HEADER.pack(len(body)) + body)
    stdout.flush()
