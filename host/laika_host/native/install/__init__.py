"""Connecting browsers to the host: the launcher and host manifests (`install`), the browsers
we know (`browsers`), and `doctor`, which checks each one and says how to fix what is wrong."""
