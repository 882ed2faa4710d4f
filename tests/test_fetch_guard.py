"""The host's own fetches never reach an address on the user's machine or network unless the
user asked (issue #24, SSRF): real loopback servers, a public page that redirects inward, a
resolver that rebinds, and a property that the URL check and the connection check agree.

Without a network, "the internet" is 127.0.0.1 here: `public_loopback.judge` treats that one
address as public and every other by the real rule, so a page served on 127.0.0.1 plays a public
site and a server on 127.0.0.2 (loopback too) plays the service inside that must stay
unreached. Names resolve through a fake `socket.getaddrinfo` (what the fetcher and httpx
would both call), so `news.test` is a public site and `rebind.test` answers what a test says.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from ipaddress import IPv4Address, ip_address
from typing import Any

import httpcore
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laika_host.addresses import refusal
from laika_host.capture.errors import AddressRefusedError, CaptureError
from laika_host.capture.fetch import fetch_html
from laika_host.capture.fetch_guard import MAX_REDIRECTS, check_url

from html_server import Redirect, Served, serve_at
from public_loopback import INSIDE, PUBLIC, judge

PAGE = "<html><head><title>{title}</title></head><body><p>{title} text.</p></body></html>"
SECRET = PAGE.format(title="Internal admin")
REAL_GETADDRINFO = socket.getaddrinfo


class FakeDns:
    """`socket.getaddrinfo` with names the test answers: each call to a name takes its next
    answer (the last one repeats); every other host goes to the real function."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = {name: list(each) for name, each in answers.items()}
        self.asked: list[str] = []

    def __call__(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in self.answers:
            return REAL_GETADDRINFO(host, port, *args, **kwargs)
        self.asked.append(name)
        queue = self.answers[name]
        addresses = queue.pop(0) if len(queue) > 1 else queue[0]
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 0)))
            for address in addresses
        ]


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, list[list[str]]]], FakeDns]:
    def install(answers: dict[str, list[list[str]]]) -> FakeDns:
        fake = FakeDns(answers)
        monkeypatch.setattr(socket, "getaddrinfo", fake)
        return fake

    return install


@pytest.fixture
def inside() -> Iterator[Served]:
    """The service inside the user's network that no page may reach."""
    with serve_at(lambda _path: SECRET, INSIDE) as served:
        yield served


def _public(page_for: Callable[[str], Any], port: int = 0) -> Any:
    return serve_at(page_for, PUBLIC, port)


@pytest.mark.parametrize(
    "target",
    [
        "http://{inside}:{port}/secret",
        "http://localhost:{port}/secret",
        "http://app.localhost:{port}/secret",
        "http://0x7f000002:{port}/secret",
        "http://2130706434:{port}/secret",
        "http://0177.0.0.2:{port}/secret",
        "http://127.2:{port}/secret",
        "http://[::ffff:127.0.0.2]:{port}/secret",
        "http://inside.test:{port}/secret",
        "http://{inside}.:{port}/secret",
    ],
)
@pytest.mark.parametrize("allow_private", [False, True])
def test_a_public_page_that_redirects_inward_is_not_followed(
    dns: Callable[..., FakeDns], inside: Served, target: str, allow_private: bool
) -> None:
    """Even with the user's allowance: once a fetch reached a public address, a redirect to
    a private one is refused (the page chose it, not the user)."""
    dns({"news.test": [[PUBLIC]], "inside.test": [[INSIDE]]})
    location = target.format(inside=INSIDE, port=inside.port)
    with (
        _public(lambda _path: Redirect(location)) as public,
        pytest.raises(AddressRefusedError) as refused,
    ):
        fetch_html(
            f"http://news.test:{public.port}/story", judge=judge, allow_private=allow_private
        )
    assert inside.connections == []
    message = str(refused.value)
    assert message.startswith(
        f"refused to follow the redirect from http://news.test:{public.port}/story"
    )
    assert "127.0.0.2" in message or "localhost" in message
    assert refused.value.kind == "private_address"
    assert public.hosts == [f"news.test:{public.port}"]  # the name, not the address it reached


@pytest.mark.parametrize(
    "location", ["file:///etc/passwd", "gopher://news.test/", "ftp://news.test/x", "data:,hi"]
)
def test_a_redirect_out_of_http_is_refused_by_name(
    dns: Callable[..., FakeDns], location: str
) -> None:
    dns({"news.test": [[PUBLIC]]})
    with (
        _public(lambda _path: Redirect(location)) as public,
        pytest.raises(AddressRefusedError) as refused,
    ):
        fetch_html(f"http://news.test:{public.port}/", judge=judge)
    assert refused.value.kind == "bad_redirect"
    assert "only http and https" in str(refused.value)


def test_redirects_are_followed_on_the_internet_and_bounded(dns: Callable[..., FakeDns]) -> None:
    dns({"news.test": [[PUBLIC]]})

    def page_for(path: str) -> Any:
        if path.startswith("/loop"):
            return Redirect(f"/loop{int(path[5:] or 0) + 1}")
        return Redirect("/final", 301) if path == "/moved" else PAGE.format(title="Final")

    with _public(page_for) as public:
        body, final = fetch_html(f"http://news.test:{public.port}/moved", judge=judge)
        assert b"Final" in body
        assert final == f"http://news.test:{public.port}/final"
        with pytest.raises(CaptureError) as looped:
            fetch_html(f"http://news.test:{public.port}/loop", judge=judge)
    assert looped.value.kind == "too_many_redirects"
    assert len([path for path in public.paths if path.startswith("/loop")]) == MAX_REDIRECTS + 1


def test_a_name_that_rebinds_after_the_check_never_gets_a_connection_inside(
    dns: Callable[..., FakeDns], inside: Served
) -> None:
    """DNS rebinding: the name answers a public address, then a loopback one. The fetcher
    resolves once per connection and connects to the address it checked, so the first
    connection reaches the public site; the redirect back to the same name opens a new
    connection, resolves again, gets the loopback address and is refused."""
    fake = dns({"rebind.test": [[PUBLIC], [INSIDE]]})

    def page_for(path: str) -> Any:
        return Redirect("/again") if path == "/" else PAGE.format(title="Public")

    with _public(page_for, inside.port) as public:  # the same port on both addresses
        body, _ = fetch_html(f"http://rebind.test:{public.port}/story", judge=judge)
        assert b"Public" in body
        assert fake.asked == ["rebind.test"]  # one lookup for one connection
        with pytest.raises(AddressRefusedError) as refused:
            fetch_html(f"http://rebind.test:{public.port}/", judge=judge)
    assert inside.connections == []
    assert inside.paths == []
    assert "rebind.test resolves to a loopback address (127.0.0.2)" in str(refused.value)


def test_a_name_that_answers_public_and_loopback_reaches_neither(
    dns: Callable[..., FakeDns], inside: Served
) -> None:
    dns({"both.test": [[PUBLIC, INSIDE]]})
    page = PAGE.format(title="Public")
    with _public(lambda _path: page, inside.port) as public, pytest.raises(AddressRefusedError):
        fetch_html(f"http://both.test:{public.port}/", judge=judge)
    assert public.connections == []
    assert inside.connections == []


@pytest.mark.parametrize(
    "host",
    ["127.0.0.2", "0x7f000002", "2130706434", "0177.0.0.2", "127.0.0.2.", "[::ffff:127.0.0.2]"],
)
def test_every_spelling_of_an_inside_address_is_refused_before_connecting(
    inside: Served, host: str
) -> None:
    with pytest.raises(AddressRefusedError) as refused:
        fetch_html(f"http://{host}:{inside.port}/")
    assert inside.connections == []
    assert "loopback address (127.0.0.2)" in str(refused.value)
    assert "--allow-private-address" in str(refused.value)


def test_the_user_may_fetch_inside_when_they_ask_and_a_model_never(
    dns: Callable[..., FakeDns], inside: Served
) -> None:
    dns({"nas.test": [[INSIDE]]})
    body, _ = fetch_html(f"http://nas.test:{inside.port}/", allow_private=True)
    assert b"Internal admin" in body
    body, _ = fetch_html(f"http://0x7f000002:{inside.port}/", allow_private=True)
    assert b"Internal admin" in body
    seen = len(inside.connections)
    with pytest.raises(AddressRefusedError) as refused:
        fetch_html(f"http://{INSIDE}:{inside.port}/", allow_private=True, for_model=True)
    assert "never fetches for a model" in str(refused.value)
    assert len(inside.connections) == seen


def test_private_to_private_redirects_follow_with_the_users_allowance(inside: Served) -> None:
    with serve_at(lambda _path: Redirect(f"http://{INSIDE}:{inside.port}/x"), "127.0.0.3") as nas:
        body, final = fetch_html(f"{nas.base}/", allow_private=True)
    assert b"Internal admin" in body
    assert final == f"http://{INSIDE}:{inside.port}/x"


# --- the URL check and the connection check agree -------------------------------------

PUBLIC_ANSWER = "93.184.216.34"


@st.composite
def hosts(draw: st.DrawFn) -> str:
    number = draw(
        st.one_of(
            st.integers(0, 2**32 - 1),
            st.sampled_from(
                [0x7F000001, 0x0A000001, 0xA9FEA9FE, 0x64400001, 0xC0A80101, 0x08080808]
            ),
        )
    )
    v4 = IPv4Address(number)
    kind = draw(
        st.sampled_from(
            ["dotted", "int", "hex", "octal", "short", "mapped", "nat64", "6to4", "name", "local"]
        )
    )
    if kind == "dotted":
        return str(v4)
    if kind == "int":
        return str(number)
    if kind == "hex":
        return f"0x{number:x}"
    if kind == "octal":
        return ".".join(f"0{octet:o}" for octet in v4.packed)
    if kind == "short":
        return f"{v4.packed[0]}.{number & 0xFFFFFF}"
    if kind == "mapped":
        return f"[::ffff:{v4}]"
    if kind == "nat64":
        return f"[64:ff9b::{v4}]"
    if kind == "6to4":
        return f"[2002:{number >> 16:x}:{number & 0xFFFF:x}::1]"
    if kind == "local":
        return draw(st.sampled_from(["localhost", "LocalHost.", "a.localhost", "x.y.localhost"]))
    return draw(st.sampled_from(["example.com", "news.test", "127.0.0.1.nip.io", "0x7f.example"]))


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https", "HTTP"]))
    userinfo = draw(st.sampled_from(["", "user@", "user:pw@", "evil.example@", "a%40b@"]))
    host = draw(hosts())
    if draw(st.booleans()) and not host.startswith("["):
        host = host.upper()
    port = draw(st.sampled_from(["", ":80", ":8080"]))
    path = draw(st.sampled_from(["/", "/a?b=c", "/@evil.example/", ""]))
    return f"{scheme}://{userinfo}{host}{port}{path}"


@settings(max_examples=250, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url=urls())
def test_the_url_check_and_the_connected_address_check_agree(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    """For any URL: the check made before a URL is queued (`check_url`, no lookup) refuses
    it exactly when the fetch refuses it before connecting; and every connection the fetch
    makes goes to the address the URL spells (or, for a name, what it resolved to), which the
    rule allows. Names resolve to a public address here, so only what the URL spells decides."""
    connected: list[str] = []

    def record(_self: Any, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        connected.append(host)
        raise httpcore.ConnectError("recorded, not connected")

    def answer(host: Any, port: Any, *_args: Any, **_kwargs: Any) -> Any:
        try:
            return REAL_GETADDRINFO(
                host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
            )
        except socket.gaierror:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC_ANSWER, 80))]

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", record)
    monkeypatch.setattr(socket, "getaddrinfo", answer)
    try:
        check_url(url)
        checked = True
    except AddressRefusedError:
        checked = False
    with pytest.raises(CaptureError) as failed:
        fetch_html(url, timeout=2)  # every connection is recorded, then fails
    if isinstance(failed.value, AddressRefusedError):
        assert not checked, url
        assert connected == [], url
        return
    assert failed.value.kind == "fetch_failed"
    assert checked, url
    if not connected:  # httpx itself refused the URL (`http://01.00.00.00/`): no connection
        with pytest.raises(httpx.InvalidURL):
            httpx.URL(url)
    for address in connected:  # an address in its plain form, never a name or a spelling
        assert str(ip_address(address)) == address, (url, address)
        assert refusal(ip_address(address)) is None, (url, address)
