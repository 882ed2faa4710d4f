"""The guard on the host's own fetches: every connection goes to an address checked first.

A check of the URL alone is not enough. A name can resolve to 127.0.0.1; a public page can
redirect to `http://169.254.169.254/`; and a name checked with one DNS lookup can answer a
different address to the lookup that connects (DNS rebinding). So the check sits where the
connection is made: httpx's transport takes an httpcore *network backend*, the one place
that turns a host name into a socket. `GuardedBackend.connect_tcp` resolves the name once,
judges every address it got (`laika_host.addresses.refusal`), and connects to one of those
same addresses, never to the name; TLS then starts on that socket with the name as SNI and
the certificate checked against the name, and the request keeps the name in its Host header.
What was checked is what is connected to.

`fetch.fetch_html` follows redirects itself (at most `MAX_REDIRECTS`), each hop checked again
(`FetchGuard.hop`: http or https, a host that is not a refused address or `localhost`) and
connected through the same backend; a connection is never reused (no keep-alive), so every
hop's connection is checked. Proxies from the environment are not used: through a proxy the
host would never see the address the proxy connects to.

The user may allow private addresses (`laika capture URL --allow-private-address`, or the
setting `capture.allow_private_addresses`; recorded on the source so its queued refreshes may
too); a model never can. Even then, once a fetch has reached a public address, a redirect to
a private one is refused: a page on the internet never sends Laika into the user's network.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpcore

from ..addresses import (
    Judge,
    Refusal,
    host_refusal,
    is_local_name,
    literal_address,
    parse_address,
    refusal,
)
from .errors import AddressRefusedError
from .urls import strip_credentials

if TYPE_CHECKING:
    import httpx

MAX_REDIRECTS = 10
WEB_SCHEMES = ("http", "https")
FLAG = "--allow-private-address"

Resolver = Callable[[str, int], list[str]]
"""(host, port) -> the addresses it resolves to, in the order to try them."""


def system_resolve(host: str, port: int) -> list[str]:
    """The system resolver's addresses for `host` (one lookup), without duplicates."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise httpcore.ConnectError(f"could not resolve {host}: {error}") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass
class FetchGuard:
    """One fetch's checks and what it has reached so far (a guard serves one fetch)."""

    url: str
    """The URL asked for (in messages and in the way out they offer)."""
    allow_private: bool = False
    for_model: bool = False
    resolve: Resolver = system_resolve
    judge: Judge = refusal
    current: str = ""
    previous: str | None = None
    reached_public: bool = False
    connected: list[str] = field(default_factory=list)
    """Every address a connection was made to, in order."""

    def __post_init__(self) -> None:
        self.allow_private = self.allow_private and not self.for_model
        self.current = self.url

    def hop(self, url: str) -> None:
        """Check the next URL to fetch (the first, or a redirect's target) before any
        connection: http(s), and no host that spells a refused address or names this
        machine. Names are checked when they resolve (`addresses`)."""
        if url != self.current:
            self.previous, self.current = self.current, url
        scheme = urlsplit(url).scheme.lower()
        if scheme not in WEB_SCHEMES:
            what = f"{scheme}: URLs" if scheme else "URLs without a scheme"
            raise AddressRefusedError(
                f"{self._head()}: Laika fetches only http and https pages, not {what}",
                kind="bad_redirect" if self.previous else "bad_url",
            )
        for host in _hosts(url):
            found = host_refusal(host, self.judge)
            if found is not None and not self._private_ok():
                raise self._refused(found.phrase, found)

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses to connect to for `host`: the address it spells, else what it
        resolves to (one lookup); each judged, and all refused if one is (a name that
        answers a public and a loopback address reaches neither)."""
        local = host_refusal(host, self.judge) if is_local_name(host) else None
        if local is not None and not self._private_ok():
            raise self._refused(local.phrase, local)
        literal = literal_address(host)
        resolved = [str(literal)] if literal is not None else self.resolve(host, port)
        for text in resolved:
            why = self.judge(parse_address(text))
            if why is not None and not self._private_ok():
                found = host_refusal(host, self.judge) if literal is not None else None
                raise self._refused(
                    found.phrase if found else f"{host} resolves to {why.phrase}", why
                )
        return resolved

    def reached(self, address: str) -> None:
        """A connection was made to `address`: a public one ends the user's allowance."""
        self.connected.append(address)
        if self.judge(parse_address(address)) is None:
            self.reached_public = True

    def check_response(self, response: httpx.Response) -> None:
        """A redirect's target is checked before httpx even builds the next request."""
        location = response.headers.get("location")
        if response.is_redirect and location:
            from urllib.parse import urljoin

            self.hop(urljoin(str(response.url), location.strip()))

    def _private_ok(self) -> bool:
        """The user allowed private addresses, and nothing public was reached yet."""
        return self.allow_private and not self.reached_public

    def _head(self) -> str:
        current = strip_credentials(self.current)
        if self.previous is None:
            return f"refused to fetch {current}"
        return (
            f"refused to follow the redirect from {strip_credentials(self.previous)} to {current}"
        )

    def _refused(self, why: str, found: Refusal) -> AddressRefusedError:
        """The refusal, naming the URL, the address and the way out: the user's own flag
        (for the URL that was refused), or saving the page from the browser."""
        target = strip_credentials(self.url if self.previous is None else self.current)
        command = f"`laika capture {target} {FLAG}`"
        if self.for_model:
            tail = (
                "which Laika never fetches for a model; to capture it yourself, save it from the "
                f"browser or run {command}"
            )
        elif self.previous is not None:
            tail = (
                "and a page on the internet never sends Laika to your machine or network, even "
                f"when you allow private addresses; to capture that page yourself, run {command}"
            )
        else:
            tail = (
                "which Laika fetches only when you ask; to capture a page on your own machine or "
                f"network, save it from the browser or run {command}"
            )
        return AddressRefusedError(
            f"{self._head()}: {why}, {tail}", address=found.address, address_kind=found.kind
        )


def _hosts(url: str) -> list[str]:
    """The URL's host as both parsers read it: the standard library's and httpx's (which
    makes the connection). A URL they read differently is judged on both readings."""
    hosts: list[str] = []
    try:
        parts = urlsplit(url)
        if parts.hostname:
            hosts.append(parts.hostname)
    except ValueError:
        pass
    import httpx

    try:
        host = httpx.URL(url).host
    except (httpx.InvalidURL, ValueError, UnicodeError):
        host = ""
    if host and host not in hosts:
        hosts.append(host)
    return hosts


def check_url(url: str, *, allow_private: bool = False, for_model: bool = False) -> None:
    """Refuse a URL whose scheme is not http(s) or whose host spells a refused address or
    names this machine, before it is queued or fetched (no lookup: adding a URL works
    offline; what a name resolves to is checked when it is fetched)."""
    FetchGuard(url, allow_private=allow_private, for_model=for_model, judge=refusal).hop(url)


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore's network backend with `FetchGuard` between the name and the socket."""

    def __init__(self, guard: FetchGuard) -> None:
        self._guard = guard
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        failure: Exception | None = None
        for address in self._guard.addresses(host, port):
            try:
                stream = self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
                continue
            self._guard.reached(address)
            return stream
        raise failure or httpcore.ConnectError(f"{host} resolves to no address")

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("Laika fetches pages over TCP only")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def guarded_transport(guard: FetchGuard) -> httpx.HTTPTransport:
    """httpx's own transport (its request and response handling, error mapping, TLS with
    certificate checks) over a connection pool whose backend is `GuardedBackend`.

    httpx 0.28 takes no network backend: its `HTTPTransport` keeps its httpcore pool in
    `_pool`, which is replaced here by the same pool with the backend and no keep-alive. If
    a newer httpx renames it, every fetch fails loudly (never unguarded), and
    tests/test_fetch_guard.py says so."""
    import httpx

    transport = httpx.HTTPTransport(trust_env=True)  # SSL_CERT_FILE and the like
    old = transport._pool
    if not isinstance(old, httpcore.ConnectionPool):
        raise TypeError(f"httpx changed its transport ({type(old).__name__}): update the guard")
    transport._pool = httpcore.ConnectionPool(
        ssl_context=old._ssl_context,
        max_keepalive_connections=0,
        network_backend=GuardedBackend(guard),
    )
    old.close()
    return transport
