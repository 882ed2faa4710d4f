"""Which environment variable a provider's key may come from, and where a key may be sent.

`models.add` is a native message, so a page that fooled the extension (or anything else that
can reach the host) chooses both ends: without rules, `key_env: AWS_SECRET_ACCESS_KEY` and
`base_url: http://attacker` would send any secret of the host's environment anywhere. So:

- `key_env` must name a variable meant as a model key: one ending in `_API_KEY` (every known
  provider's: OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) or starting with `LAIKA_`.
- A key is sent only over https, or to this machine (localhost, 127.0.0.0/8, ::1).
- `base_url` is an absolute http(s) URL with a valid host and port, and without a user name,
  password, query or fragment: a key written into the URL would be stored and shown.

Config validation applies these when a provider is added or loaded, and `ProviderConfig.api_key`
again just before a key is read, so no path (CLI, host, an override for one call) skips them.
"""

from __future__ import annotations

import ipaddress
import re

import httpx

from ..errors import RefusedError

KEY_ENV_RULE = (
    "the variable holding a model key must be named *_API_KEY (like OPENAI_API_KEY) or "
    "LAIKA_* (like LAIKA_MY_KEY)"
)
KEY_TRANSPORT_RULE = "a key is only sent over https, or over http to this machine (localhost)"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
"""One DNS label; httpx gives international names already as punycode (`xn--...`)."""


class KeyPolicyError(RefusedError, ValueError):
    """A provider setting these rules refuse; the message names the rule and the fix.
    A ValueError, so pydantic validators report it as a validation error."""


def check_key_env(name: str) -> str:
    """`name` when it may hold a model key; else KeyPolicyError naming the rule."""
    if not _ENV_NAME.fullmatch(name):
        raise KeyPolicyError(f"key_env {name!r} is not an environment variable name")
    if not (name.endswith("_API_KEY") or (name.startswith("LAIKA_") and len(name) > 6)):
        raise KeyPolicyError(
            f"key_env {name!r} is refused: {KEY_ENV_RULE}; the host never reads other "
            "variables (they may hold other secrets). Set the key in such a variable"
        )
    return name


def check_base_url(url: str) -> str:
    """`url` when it is a usable provider address; else KeyPolicyError saying what to fix."""
    try:
        parsed = httpx.URL(url)
        port = parsed.port
    except (httpx.InvalidURL, ValueError, UnicodeError) as error:
        raise KeyPolicyError(f"base_url {url!r} is not a valid URL ({error})") from None
    if parsed.scheme not in ("http", "https"):
        raise KeyPolicyError(f"base_url {url!r} must start with https:// or http://")
    if parsed.userinfo or "@" in _authority(url):
        raise KeyPolicyError(
            "base_url must not carry a user name or password (user:secret@host): a key there "
            "would be stored and shown. Put the key in an environment variable and name it "
            "with key_env"
        )
    if not _valid_host(parsed.host):
        raise KeyPolicyError(f"base_url {url!r} has no valid host name")
    if port is not None and not 0 < port < 65536:
        raise KeyPolicyError(f"base_url {url!r}: the port must be between 1 and 65535")
    if parsed.query or parsed.fragment or "?" in url or "#" in url:
        raise KeyPolicyError(f"base_url {url!r} must not have a ?query or #fragment")
    return url


def check_key_destination(url: str, key_env: str) -> None:
    """Refuse a configuration that would send the key in `key_env` over plain http to
    another machine, where anyone on the way reads it."""
    parsed = httpx.URL(url)
    if parsed.scheme == "https" or is_loopback(parsed.host):
        return
    raise KeyPolicyError(
        f"base_url {url!r} would send the key in {key_env} unencrypted: {KEY_TRANSPORT_RULE}. "
        "Use an https:// address, or for a keyless server on your network leave key_env unset "
        "with kind openai_compatible or ollama"
    )


def is_loopback(host: str) -> bool:
    """This machine: `localhost` or a loopback IP (a name that resolves there is not enough:
    resolution can change between this check and the call)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _authority(url: str) -> str:
    """The `user@host:port` part as written (httpx drops an empty `@`)."""
    authority = url.partition("//")[2]
    for end in "/?#":
        authority = authority.partition(end)[0]
    return authority


def _valid_host(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    labels = host.split(".")
    return 0 < len(host) <= 253 and all(_HOST_NAME.fullmatch(label) for label in labels)
