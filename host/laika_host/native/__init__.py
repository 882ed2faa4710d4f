"""The native-messaging host, in three parts: `transport` (framing, envelope, router,
sessions, stdio and socket), `handlers` (the message types, thin calls into `service`) and
`install` (launcher, manifests, doctor); `errors` is the host's error codes.

Kept free of heavy imports: the browser starts a host process per port, and the first reply
must come fast. Payload models (pydantic) load on first use, not at start-up.
"""
