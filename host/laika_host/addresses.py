"""Which network addresses the host may fetch a page from: the rule, and the spellings.

The host fetches pages for the user and for a model (`source.capture`); a page that sent
it to `http://127.0.0.1:8080/` or `http://169.254.169.254/` would read a service on the
user's machine or network and hand its text to the model (server-side request forgery).
This module decides, on an address and on how a host may spell one; `capture.fetch_guard`
applies it to the address each connection actually goes to.

The rule (`refusal`): an address is refused when

- it is an IPv4-mapped (`::ffff:0:0/96`) or NAT64 (`64:ff9b::/96`) IPv6 address whose
  IPv4 address is refused (those reach the IPv4 address: it alone decides), or else
- Python's `ipaddress` says it is not `is_global`, or it `is_multicast`, `is_reserved`, or
  (IPv6) `is_site_local`, or
- it embeds an IPv4 address that is refused: 6to4 (`2002::/16`), Teredo (`2001::/32`, its
  server and client), IPv4-compatible (`::a.b.c.d`).

So loopback, private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10),
shared (CGNAT, 100.64/10), unique-local (fc00::/7), multicast, unspecified, reserved,
broadcast and documentation addresses are refused, however the IPv6 form wraps them.

Spellings (`literal_address`): a host is read as an address the way a browser's URL parser
and the C library's `inet_aton` read one, whichever reads more: one to four parts, each
decimal, octal (`0177`) or hex (`0x7f`), the last filling the remaining bytes (`127.1`,
`2130706433`, `0x7f000001`), one trailing dot allowed, percent-escapes decoded; IPv6 in
brackets or bare, with a zone (`fe80::1%25eth0`). Reading more is the safe side: what is
read here as an address is judged as one, and what the system would read as one is never a
name here. `localhost` and every name under it are refused by name (RFC 6761), whatever a
resolver says.

Pure (the standard library only): the settings tools, the service layer and the fetcher
share it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from urllib.parse import unquote

IPAddress = IPv4Address | IPv6Address

_MAPPED = IPv6Network("::ffff:0:0/96")
_NAT64 = IPv6Network("64:ff9b::/96")
_COMPATIBLE = IPv6Network("::/96")
_SHARED = IPv4Network("100.64.0.0/10")
_UNIQUE_LOCAL = IPv6Network("fc00::/7")
_RFC1918 = (IPv4Network("10.0.0.0/8"), IPv4Network("172.16.0.0/12"), IPv4Network("192.168.0.0/16"))
_BROADCAST = IPv4Address("255.255.255.255")
_HEX = re.compile(r"0[xX][0-9A-Fa-f]*")
_OCTAL = re.compile(r"0[0-7]+")
_DECIMAL = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Refusal:
    """Why an address (or a host name) is never fetched: `kind` is what it is (`loopback`,
    `private`, ...), `address` the address it is (None for a name such as `localhost`)."""

    kind: str
    phrase: str
    """`a loopback address (127.0.0.1)`: what the error message says it is."""
    address: str | None = None


def refusal(address: IPAddress) -> Refusal | None:
    """Why `address` is refused (see the module's rule), or None when it may be fetched."""
    reached = _reached(address)
    if reached is not address:
        inner = refusal(reached)
        if inner is None:
            return None
        return Refusal(
            inner.kind,
            f"an IPv6 form ({address}) of {_bare(inner.phrase)} ({reached})",
            str(reached),
        )
    for embedded in _embedded(address):
        inner = refusal(embedded)
        if inner is not None:
            return Refusal(
                inner.kind,
                f"an IPv6 address ({address}) that carries {_bare(inner.phrase)} ({embedded})",
                str(embedded),
            )
    kind = _kind(address)
    if kind is not None:
        return Refusal(kind[0], f"{kind[1]} ({address})", str(address))
    return None


def _bare(phrase: str) -> str:
    """`a loopback address (127.0.0.1)` -> `a loopback address`."""
    return phrase.rpartition(" (")[0] or phrase


def _reached(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv4-mapped or NAT64 address connects to; else `address`."""
    if isinstance(address, IPv6Address) and (address in _MAPPED or address in _NAT64):
        return IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def _embedded(address: IPAddress) -> list[IPv4Address]:
    """The IPv4 addresses a 6to4, Teredo or IPv4-compatible IPv6 address carries."""
    if not isinstance(address, IPv6Address):
        return []
    found: list[IPv4Address] = []
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    if address in _COMPATIBLE and int(address) > 1:
        found.append(IPv4Address(int(address)))
    return found


def _kind(address: IPAddress) -> tuple[str, str] | None:
    """(kind, phrase) of an address refused on its own, or None when it is global."""
    v4 = isinstance(address, IPv4Address)
    if address.is_unspecified:
        return "unspecified", "the unspecified address"
    if address.is_loopback:
        return "loopback", "a loopback address"
    if address.is_link_local:
        return "link-local", "a link-local address"
    if address.is_multicast:
        return "multicast", "a multicast address"
    if v4 and address in _SHARED:
        return "shared", "a shared (carrier-grade NAT) address"
    if v4 and address == _BROADCAST:
        return "broadcast", "the broadcast address"
    if v4 and any(address in network for network in _RFC1918):
        return "private", "a private address"
    if not v4 and address in _UNIQUE_LOCAL:
        return "unique-local", "a unique-local address"
    if not v4 and address.is_site_local:  # type: ignore[union-attr]
        return "site-local", "a site-local address"
    if address.is_reserved:
        return "reserved", "a reserved address"
    if not address.is_global:
        return "special-purpose", "a special-purpose address that is not globally reachable"
    return None


def literal_address(host: str) -> IPAddress | None:
    """The address `host` spells (see the module's spellings), or None for a name."""
    text = unquote(host.strip()).lower()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        try:
            return IPv6Address(text)
        except ValueError:
            return None
    return _ipv4(text)


def _ipv4(text: str) -> IPv4Address | None:
    parts = text.removesuffix(".").split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers = [_number(part) for part in parts]
    if any(number is None for number in numbers):
        return None
    *leading, last = [number for number in numbers if number is not None]
    if any(number > 255 for number in leading) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last
    for index, number in enumerate(leading):
        value += number << (8 * (3 - index))
    return IPv4Address(value)


def _number(part: str) -> int | None:
    """One part of an IPv4 spelling: hex (`0x7f`, a bare `0x` is 0), octal (`0177`),
    decimal; None for anything else (the host is then a name)."""
    if _HEX.fullmatch(part):
        return int(part[2:] or "0", 16)
    if _OCTAL.fullmatch(part):
        return int(part, 8)
    if _DECIMAL.fullmatch(part) and (part == "0" or not part.startswith("0")):
        return int(part)
    return None


def is_local_name(host: str) -> bool:
    """`localhost` or a name under it (`app.localhost`), any case, a trailing dot or not."""
    name = unquote(host.strip()).lower().rstrip(".")
    return name == "localhost" or name.endswith(".localhost")


Judge = Callable[[IPAddress], Refusal | None]
"""Why an address is refused, or None (`refusal`; tests stand one in)."""


def host_refusal(host: str, judge: Judge | None = None) -> Refusal | None:
    """Why a URL's host is refused before any lookup (its `phrase` is then the whole reason:
    `its host 0x7f000001 is a loopback address (127.0.0.1)`): an address it spells that is
    refused, or `localhost`; None for any other name (decided when it resolves) or a global
    address. `judge` stands in for `refusal` (tests)."""
    if is_local_name(host):
        return Refusal("loopback", f"its host {host} is a name for this machine (loopback)")
    address = literal_address(host)
    found = None if address is None else (judge or refusal)(address)
    if found is None:
        return None
    spelled = "" if _canonical(host) == str(address) else f" {host}"
    return Refusal(found.kind, f"its host{spelled} is {found.phrase}", found.address)


def _canonical(host: str) -> str:
    return host.strip().lower().removeprefix("[").removesuffix("]")


def is_address_spelling(host: str) -> bool:
    """Whether `host` spells an address at all (any spelling), or names this machine."""
    return is_local_name(host) or literal_address(host) is not None


def parse_address(text: str) -> IPAddress:
    """An address as a resolver returns it (`sockaddr[0]`, with an IPv6 zone or not)."""
    return ip_address(text)
