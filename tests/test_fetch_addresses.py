"""The address rule the host's fetches obey (issue #24, SSRF): which addresses are refused,
and how a URL may spell one. Properties range over the whole IPv4 and IPv6 spaces, each
address written in every spelling a URL parser or `inet_aton` reads.

The rule, stated once (the oracle `refused` below): an IPv4-mapped (`::ffff:0:0/96`) or
NAT64 (`64:ff9b::/96`) address is judged by the IPv4 address it reaches; any other address
is refused when `ipaddress` says it is not `is_global`, or is `is_multicast`, `is_reserved`
or (IPv6) `is_site_local`, or when it embeds (6to4, Teredo, IPv4-compatible) an IPv4
address refused by the rule."""

from __future__ import annotations

import socket
from ipaddress import IPv4Address, IPv6Address, IPv6Network, ip_address

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from laika_host.addresses import host_refusal, is_local_name, literal_address, refusal

NAT64 = IPv6Network("64:ff9b::/96")
COMPATIBLE = IPv6Network("::/96")


def refused(address: IPv4Address | IPv6Address) -> bool:
    """The rule, in `ipaddress`'s own words (see the module docstring)."""
    if isinstance(address, IPv6Address) and (address.ipv4_mapped or address in NAT64):
        return refused(IPv4Address(int(address) & 0xFFFFFFFF))
    if (
        not address.is_global
        or address.is_multicast
        or address.is_reserved
        or (isinstance(address, IPv6Address) and address.is_site_local)
    ):
        return True
    embedded: list[IPv4Address] = []
    if isinstance(address, IPv6Address):
        if address.sixtofour:
            embedded.append(address.sixtofour)
        if address.teredo:
            embedded.extend(address.teredo)
        if address in COMPATIBLE:
            embedded.append(IPv4Address(int(address)))
    return any(refused(inner) for inner in embedded)


# --- spellings -------------------------------------------------------------------------


def _part(value: int, radix: str) -> str:
    if radix == "hex":
        return f"0x{value:x}"
    if radix == "HEX":
        return f"0X{value:X}"
    if radix == "oct":
        return f"0{value:o}"
    return str(value)


@st.composite
def ipv4_spellings(draw: st.DrawFn, number: int) -> str:
    """`number` written as a URL host: 1 to 4 parts, each decimal, octal or hex, maybe a
    trailing dot, maybe percent-escaped dots."""
    count = draw(st.integers(1, 4))
    octets = number.to_bytes(4, "big")
    leading = list(octets[: count - 1])
    last = int.from_bytes(octets[count - 1 :], "big")
    radixes = st.sampled_from(["dec", "oct", "hex", "HEX"])
    parts = [_part(value, draw(radixes)) for value in [*leading, last]]
    text = ".".join(parts) + draw(st.sampled_from(["", "."]))
    if draw(st.booleans()) and "." in text:
        text = text.replace(".", "%2e", 1)
    return text


@st.composite
def ipv6_wrappings(draw: st.DrawFn, number: int) -> tuple[str, IPv6Address]:
    """An IPv6 address that carries the IPv4 address `number`, as a bracketed host."""
    v4 = IPv4Address(number)
    form = draw(st.sampled_from(["mapped", "mapped-hex", "nat64", "6to4", "compat", "teredo"]))
    if form == "mapped":
        text = f"::ffff:{v4}"
    elif form == "mapped-hex":
        text = f"::ffff:{number >> 16:x}:{number & 0xFFFF:x}"
    elif form == "nat64":
        text = f"64:ff9b::{v4}"
    elif form == "6to4":
        text = f"2002:{number >> 16:x}:{number & 0xFFFF:x}::{draw(st.integers(0, 0xFFFF)):x}"
    elif form == "compat":
        text = f"::{v4}"
    else:  # Teredo: server, flags, port, then the client obfuscated (bits inverted)
        server = draw(st.integers(0, 2**32 - 1))
        client = number ^ 0xFFFFFFFF
        text = (
            f"2001:0:{server >> 16:x}:{server & 0xFFFF:x}:0:0:{client >> 16:x}:{client & 0xFFFF:x}"
        )
    address = IPv6Address(text)
    upper = draw(st.booleans())
    return f"[{text.upper() if upper else text}]", address


INTERESTING_V4 = [
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "255.255.255.255/32",
    "8.8.8.0/24",
]
INTERESTING_V6 = [
    "::/120",
    "::ffff:0:0/96",
    "64:ff9b::/96",
    "64:ff9b:1::/48",
    "100::/64",
    "2001::/32",
    "2001:db8::/32",
    "2002::/16",
    "2600::/16",
    "fc00::/7",
    "fe80::/10",
    "fec0::/10",
    "ff00::/8",
]


def _in(networks: list[str], bits: int) -> st.SearchStrategy[int]:
    """Numbers spread over the whole space, with many inside the networks that matter."""

    def inside(network: str) -> st.SearchStrategy[int]:
        first, prefix = network.split("/")
        net = ip_address(first)
        size = 2 ** (bits - int(prefix))
        return st.integers(0, size - 1).map(lambda offset: int(net) + offset)

    return st.one_of(st.integers(0, 2**bits - 1), st.sampled_from(networks).flatmap(inside))


ipv4_numbers = _in(INTERESTING_V4, 32)
ipv6_numbers = _in(INTERESTING_V6, 128)


@settings(max_examples=600)
@given(st.data(), ipv4_numbers)
@example(data=None, number=0x7F000001)
def test_every_ipv4_spelling_is_refused_exactly_when_the_rule_refuses_its_address(
    data: st.DataObject | None, number: int
) -> None:
    address = IPv4Address(number)
    spellings = [str(address), str(number), f"0x{number:x}", f"{address}."]
    if data is not None:
        spellings.append(data.draw(ipv4_spellings(number)))
    for spelling in spellings:
        assert literal_address(spelling) == address, spelling
        assert (host_refusal(spelling) is not None) == refused(address), spelling
    assert (refusal(address) is not None) == refused(address)


@settings(max_examples=600)
@given(st.data(), ipv4_numbers)
def test_every_ipv6_form_of_an_ipv4_address_is_judged_by_the_rule(
    data: st.DataObject, number: int
) -> None:
    host, address = data.draw(ipv6_wrappings(number))
    assert literal_address(host) == address
    assert (host_refusal(host) is not None) == refused(address), host
    if refused(IPv4Address(number)) and not host.lower().startswith("[2001:0:"):
        assert host_refusal(host) is not None  # no wrapping hides a refused address
    # Teredo is refused whatever it carries: Python says 2001::/32 is not global


@settings(max_examples=600)
@given(ipv6_numbers)
def test_every_ipv6_address_is_refused_exactly_when_the_rule_refuses_it(number: int) -> None:
    address = IPv6Address(number)
    for spelling in (f"[{address}]", f"[{address.exploded}]", str(address)):
        assert literal_address(spelling) == address
        assert (host_refusal(spelling) is not None) == refused(address), spelling


@settings(max_examples=300)
@given(st.data(), ipv4_numbers)
def test_a_host_the_system_reads_as_an_address_is_read_as_the_same_address(
    data: st.DataObject, number: int
) -> None:
    """The C library (what a connection to a name finally uses) and this module read every
    spelling alike: whatever `getaddrinfo` takes as a numeric host, `literal_address` reads
    as the same address (this module reads more: a trailing dot, `0x`, escapes)."""
    spelling = data.draw(ipv4_spellings(number))
    try:
        infos = socket.getaddrinfo(spelling, 80, flags=socket.AI_NUMERICHOST)
    except socket.gaierror:
        assume(False)
        return
    assert literal_address(spelling) == ip_address(infos[0][4][0])


numeric_hosts = st.lists(
    st.tuples(st.integers(0, 2**33), st.sampled_from(["dec", "oct", "hex", "HEX"])),
    min_size=1,
    max_size=5,
).map(lambda parts: ".".join(_part(value, radix) for value, radix in parts))


@settings(max_examples=400)
@given(numeric_hosts)
@example("1.2.3.256")
@example("1.2.65536")
@example("4294967296")
@example("1.2.3.4.5")
def test_numeric_hosts_with_any_part_values_read_as_the_c_library_reads_them(host: str) -> None:
    """Without the extras a browser adds (a trailing dot, a bare `0x`, escapes), the two
    readings are the same both ways: the same address, or a name for both (a part out of
    range, a fifth part)."""
    try:
        system = ip_address(socket.getaddrinfo(host, 80, flags=socket.AI_NUMERICHOST)[0][4][0])
    except socket.gaierror:
        system = None
    assert literal_address(host) == system


REFUSED_HOSTS = {
    "127.0.0.1": "loopback",
    "[::1]": "loopback",
    "0x7f000001": "loopback",
    "0X7F000001": "loopback",
    "2130706433": "loopback",
    "0177.0.0.1": "loopback",
    "127.1": "loopback",
    "127.0.0.1.": "loopback",
    "0x7f.0.0.1": "loopback",
    "127.0.0.1%2e": "loopback",
    "localhost": "loopback",
    "LOCALHOST.": "loopback",
    "app.localhost": "loopback",
    "10.1.2.3": "private",
    "172.16.0.1": "private",
    "172.31.255.255": "private",
    "192.168.1.1": "private",
    "169.254.169.254": "link-local",
    "[fe80::1]": "link-local",
    "[fe80::1%25eth0]": "link-local",
    "100.64.0.1": "shared",
    "[fc00::1]": "unique-local",
    "[fd12:3456::1]": "unique-local",
    "224.0.0.251": "multicast",
    "[ff02::1]": "multicast",
    "0.0.0.0": "unspecified",
    "[::]": "unspecified",
    "0": "unspecified",
    "240.0.0.1": "reserved",
    "255.255.255.255": "broadcast",
    "[::ffff:127.0.0.1]": "loopback",
    "[::ffff:7f00:1]": "loopback",
    "[::ffff:169.254.169.254]": "link-local",
    "[::127.0.0.1]": "loopback",
    "[64:ff9b::10.0.0.1]": "private",
    "[2002:7f00:1::]": "loopback",
    "[2002:c0a8:101::1]": "private",
    "[fec0::1]": "site-local",
}


@pytest.mark.parametrize(("host", "kind"), REFUSED_HOSTS.items())
def test_each_form_named_in_the_issue_is_refused_with_its_kind(host: str, kind: str) -> None:
    found = host_refusal(host)
    assert found is not None, host
    assert found.kind == kind
    assert found.phrase.startswith("its host ")


@pytest.mark.parametrize(
    "host",
    [
        "example.com",
        "8.8.8.8",
        "[2001:4860:4860::8888]",
        "[::ffff:8.8.8.8]",
        "[64:ff9b::8.8.8.8]",
        "[2002:808:808::1]",
        "localhost.example.com",
        "mylocalhost",
        "127.0.0.1.example.com",
        "0x7f000001.example",
    ],
)
def test_names_and_global_addresses_pass_the_host_check(host: str) -> None:
    assert host_refusal(host) is None


def test_an_odd_spelling_is_named_with_the_address_it_is() -> None:
    found = host_refusal("0x7f000001")
    assert found is not None
    assert found.phrase == "its host 0x7f000001 is a loopback address (127.0.0.1)"
    mapped = host_refusal("[::ffff:10.0.0.1]")
    assert mapped is not None
    assert "a private address (10.0.0.1)" in mapped.phrase
    assert is_local_name("a.b.LocalHost.")
