"""How messages move: framing, the envelope, sessions, the router, stdio and socket transports.

Knows no feature: a session dispatches each request through a `Router` whose table
(`native.handlers.routes`) the entry points pass in or load lazily.
"""
