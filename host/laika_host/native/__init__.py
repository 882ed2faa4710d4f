"""The native-messaging host: framing, envelope, router, sessions, transports, install, doctor.

Kept free of heavy imports: the browser starts a host process per port, and the first reply
must come fast. Payload models (pydantic) load on first use, not at start-up.
"""
