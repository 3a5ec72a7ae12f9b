"""The URL policy: which URLs the agent may fetch (protection against server-side request forgery).

A page, a search result or the model itself may ask for any URL, so the address rule is enforced
where it cannot be talked around: on the IP address a connection is really made to.

Two layers:

* `URLPolicy.check_url` is the cheap syntax check, run on the URL the model gave and on every
  redirect `Location` (the web fetcher follows redirects one hop at a time): http/https only, no
  credentials, a host, and — when the host is an IP literal in any notation (`127.1`,
  `2130706433`, `0x7f000001`, `0177.0.0.1`, `[::ffff:127.0.0.1]`, …) — the address rule.
* `make_client` returns an `httpx.AsyncClient` whose transport resolves every host itself at
  connect time, refuses the connection if ANY resolved address is not public, and connects to the
  very address it checked. There is no second DNS lookup between check and connect, so a name that
  answers "public" to the check and "127.0.0.1" a moment later (DNS rebinding) cannot slip through.

`URLPolicy(allow_private=True)` (the CLI's `--allow-private-urls`) lifts the address rule only;
the scheme and credential rules always hold. `URLPolicy(offline=True)` (the CLI's `--offline`)
refuses every URL and every connection, whatever else is allowed: the last line behind the web
actions' own offline refusals, so that no code path forgotten there can reach the network.

Refusals are `URLRefusedError` (a `SandboxError`, so a `ValueError`) whose message is written for
the model. Through the client they propagate as that same exception, not wrapped in an
`httpx.HTTPError`: httpx re-raises exceptions it does not know unchanged.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpcore
import httpx

from agent_runtime.errors import URLRefusedError

__all__ = [
    "IPAddress",
    "PolicyNetworkBackend",
    "PolicyTransport",
    "Resolver",
    "URLPolicy",
    "is_public_address",
    "make_client",
    "parse_ip_host",
    "system_resolver",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Resolves (host, port) to IP address strings, as getaddrinfo's sockaddr[0] gives them.
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

_ALLOWED_SCHEMES = ("http", "https")

_ADVICE = (
    "only public internet addresses may be fetched "
    "(a person can allow private addresses with --allow-private-urls)"
)

# Names that mean "this machine" without any DNS lookup (RFC 6761 reserves *.localhost; the rest
# are the usual /etc/hosts aliases). Refusing them early gives a clearer message; the connect-time
# check would refuse them anyway once they resolve to loopback.
_LOCALHOST_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


# --------------------------------------------------------------------------------------------------
# Which addresses are public
# --------------------------------------------------------------------------------------------------


def _v4(cidr: str) -> ipaddress.IPv4Network:
    return ipaddress.IPv4Network(cidr)


def _v6(cidr: str) -> ipaddress.IPv6Network:
    return ipaddress.IPv6Network(cidr)


# IANA's special-purpose ranges that are not globally reachable, plus multicast and the reserved
# block. Python's `is_global` is checked as well, but on its own it lets multicast through and its
# lists change between Python versions, so the ranges that matter most are spelled out here, each
# with the words the refusal message uses.
_IPV4_RULES: tuple[tuple[ipaddress.IPv4Network, str], ...] = (
    (_v4("0.0.0.0/8"), "a 'this network' address (0.0.0.0/8), which reaches the local machine"),
    (_v4("127.0.0.0/8"), "a loopback address"),
    (_v4("10.0.0.0/8"), "a private-network address (10.0.0.0/8)"),
    (_v4("172.16.0.0/12"), "a private-network address (172.16.0.0/12)"),
    (_v4("192.168.0.0/16"), "a private-network address (192.168.0.0/16)"),
    (_v4("169.254.0.0/16"), "a link-local address (169.254.0.0/16, where cloud metadata services live)"),
    (_v4("100.64.0.0/10"), "a carrier-grade NAT address (100.64.0.0/10)"),
    (_v4("192.0.0.0/24"), "an IETF protocol-assignment address (192.0.0.0/24)"),
    (_v4("192.0.2.0/24"), "a documentation address (192.0.2.0/24)"),
    (_v4("198.51.100.0/24"), "a documentation address (198.51.100.0/24)"),
    (_v4("203.0.113.0/24"), "a documentation address (203.0.113.0/24)"),
    (_v4("192.88.99.0/24"), "a deprecated 6to4 relay address (192.88.99.0/24)"),
    (_v4("198.18.0.0/15"), "a benchmarking address (198.18.0.0/15)"),
    (_v4("224.0.0.0/4"), "a multicast address (224.0.0.0/4)"),
    (_v4("255.255.255.255/32"), "the broadcast address"),
    (_v4("240.0.0.0/4"), "a reserved address (240.0.0.0/4)"),
)

_IPV6_RULES: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_v6("::1/128"), "a loopback address"),
    (_v6("64:ff9b:1::/48"), "a local-use NAT64 address (64:ff9b:1::/48)"),
    (_v6("fc00::/7"), "a unique-local (private network) address (fc00::/7)"),
    (_v6("fe80::/10"), "a link-local address (fe80::/10)"),
    (_v6("fec0::/10"), "a deprecated site-local address (fec0::/10)"),
    (_v6("ff00::/8"), "a multicast address (ff00::/8)"),
    (_v6("100::/64"), "a discard-only address (100::/64)"),
    (_v6("2001:db8::/32"), "a documentation address (2001:db8::/32)"),
    (_v6("3fff::/20"), "a documentation address (3fff::/20)"),
    (_v6("2001::/23"), "an IETF protocol-assignment address (2001::/23)"),
)

_IPV6_GLOBAL_UNICAST = _v6("2000::/3")
# Forms that carry an IPv4 address inside an IPv6 one; a connection to them ends up at that IPv4
# address (through the kernel, a 6to4 relay or a NAT64 gateway), so it is the IPv4 address that
# is judged. Python's `is_global` calls several of these global whatever they embed.
_IPV4_MAPPED = _v6("::ffff:0:0/96")
_NAT64_WELL_KNOWN = _v6("64:ff9b::/96")
_SIX_TO_FOUR = _v6("2002::/16")
_TEREDO = _v6("2001::/32")


def _ipv4_reason(ip: ipaddress.IPv4Address) -> str | None:
    if ip == ipaddress.IPv4Address(0):
        return "the unspecified address, which reaches the local machine"
    for network, reason in _IPV4_RULES:
        if ip in network:
            return reason
    if not ip.is_global:
        return "not a globally reachable address"
    return None


def _embedded(form: str, inner: ipaddress.IPv4Address) -> str | None:
    reason = _ipv4_reason(inner)
    return None if reason is None else f"{form} that embeds {inner}, which is {reason}"


def _ipv6_reason(ip: ipaddress.IPv6Address) -> str | None:
    if ip == ipaddress.IPv6Address(0):
        return "the unspecified address (::), which reaches the local machine"
    if ip in _IPV4_MAPPED:
        return _embedded("an IPv4-mapped address", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip in _NAT64_WELL_KNOWN:
        return _embedded("a NAT64 address", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip in _SIX_TO_FOUR:
        return _embedded("a 6to4 address", ipaddress.IPv4Address((int(ip) >> 80) & 0xFFFFFFFF))
    if ip in _TEREDO:
        # A Teredo address names a tunnel server and a client (stored inverted); traffic to it is
        # relayed to the client's IPv4 address. Name the embedded address when it is the problem;
        # otherwise the tunnel itself is not a destination worth reaching.
        teredo = ip.teredo
        assert teredo is not None  # every address in 2001::/32 has one
        server, client = teredo
        for inner in (client, server):
            reason = _embedded("a Teredo tunnel address", inner)
            if reason is not None:
                return reason
        return "a Teredo tunnel address (2001::/32), not a globally reachable destination"
    for network, reason in _IPV6_RULES:
        if ip in network:
            return reason
    if ip not in _IPV6_GLOBAL_UNICAST:
        # Everything outside 2000::/3 is unassigned or special-purpose, including the deprecated
        # IPv4-compatible form ::a.b.c.d.
        return "a reserved address outside the global unicast range (2000::/3)"
    if not ip.is_global:
        return "not a globally reachable address"
    return None


def _non_public_reason(ip: IPAddress) -> str | None:
    """Why `ip` is not a public internet address (words for a message), or None if it is."""
    if isinstance(ip, ipaddress.IPv4Address):
        return _ipv4_reason(ip)
    return _ipv6_reason(ip)


def is_public_address(ip: IPAddress) -> bool:
    """True if `ip` is a public internet address, judging embedded IPv4 addresses (IPv4-mapped,
    6to4, NAT64, Teredo) by the address they embed."""
    return _non_public_reason(ip) is None


# --------------------------------------------------------------------------------------------------
# IP literals in every notation a resolver or browser accepts
# --------------------------------------------------------------------------------------------------


def _is_numeric_label(label: str) -> bool:
    if label[:2].lower() == "0x":
        return all(c in "0123456789abcdefABCDEF" for c in label[2:])
    return label != "" and label.isascii() and label.isdigit()


def _parse_ipv4_number(part: str) -> int | None:
    # inet_aton / WHATWG: 0x… is hex, a leading 0 is octal, anything else decimal.
    if part == "":
        return None
    radix = 10
    if part[:2].lower() == "0x":
        radix, part = 16, part[2:]
    elif len(part) > 1 and part[0] == "0":
        radix, part = 8, part[1:]
    if part == "":
        return 0
    digits = "0123456789abcdef"[:radix]
    if not all(c in digits for c in part.lower()):
        return None
    return int(part, radix)


def _parse_legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Parse `host` the way inet_aton and browsers do: one to four parts, each decimal, octal or
    hex, the last one filling the remaining bytes (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`).
    None if `host` is not such a literal."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # a single trailing dot, as in "127.0.0.1."
    if not 1 <= len(parts) <= 4:
        return None
    numbers = [_parse_ipv4_number(p) for p in parts]
    if any(n is None for n in numbers):
        return None
    *head, last = [n for n in numbers if n is not None]
    if any(n > 255 for n in head) or last >= 256 ** (4 - len(head)):
        return None
    value = last
    for index, n in enumerate(head):
        value += n << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def parse_ip_host(host: str) -> IPAddress | None:
    """The IP address a URL host denotes, in any notation (brackets optional for IPv6), or None
    if the host is a name."""
    host = host.strip("[]")
    if ":" in host:
        try:
            # httpx keeps a zone id percent-encoded ("fe80::1%25eth0").
            return ipaddress.IPv6Address(host.replace("%25", "%"))
        except ValueError:
            return None
    return _parse_legacy_ipv4(host)


def _ends_in_number(host: str) -> bool:
    return _is_numeric_label(host.removesuffix(".").split(".")[-1])


# --------------------------------------------------------------------------------------------------
# Resolution
# --------------------------------------------------------------------------------------------------


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve with the event loop's getaddrinfo (which calls `socket.getaddrinfo` in a thread)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos if info[0] in (socket.AF_INET, socket.AF_INET6)]


# --------------------------------------------------------------------------------------------------
# The policy
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class URLPolicy:
    """Which URLs may be fetched. `allow_private=True` lifts the address rule only; `offline=True`
    refuses everything (and wins over `allow_private`)."""

    allow_private: bool = False
    offline: bool = False
    # Injectable for tests and for callers with their own DNS; None means `system_resolver`.
    resolver: Resolver | None = field(default=None, compare=False, repr=False)

    def check_url(self, url: str | httpx.URL) -> httpx.URL:
        """Check a URL's syntax-level rules and return it normalized (a legacy IPv4 host such as
        `0x7f000001` rewritten as `127.0.0.1`, so the request goes where the check looked).

        For a redirect, join the `Location` with the URL it came from first
        (`response.url.join(location)`) and check the result before requesting it. A host name is
        not resolved here: the client from `make_client` checks the resolved address at connect
        time.
        """
        self._check_online()
        parsed, written_host = _parse_url(url)
        shown = url if isinstance(url, str) else str(url)
        if parsed.userinfo:
            # The message leaves the URL out: it would repeat the password.
            raise URLRefusedError(
                "URL refused: it carries a user name or password (user:pass@host); "
                "credentials in URLs are not allowed, remove them and try again"
            )
        scheme = parsed.scheme
        if not scheme:
            raise URLRefusedError(
                f"URL refused: {shown!r} has no scheme; give a full http:// or https:// URL"
            )
        if scheme not in _ALLOWED_SCHEMES:
            raise URLRefusedError(
                f"URL refused: the scheme '{scheme}:' is not allowed; "
                "only http:// and https:// URLs may be fetched"
            )
        host = parsed.host
        if not host:
            raise URLRefusedError(f"URL refused: {shown!r} has no host name")

        ip = parse_ip_host(host)
        if ip is not None:
            self.check_ip(ip, host=written_host or host)
            if isinstance(ip, ipaddress.IPv4Address) and host != str(ip):
                parsed = parsed.copy_with(host=str(ip))
            return parsed
        if _ends_in_number(host):
            # Browsers refuse such hosts too; a resolver might still read them as an address.
            raise URLRefusedError(
                f"URL refused: the host {host!r} looks like a numeric IP address but is not a valid one"
            )
        self._check_host_name(host)
        return parsed

    def check_ip(self, ip: IPAddress, *, host: str | None = None) -> None:
        """Refuse `ip` unless it is public or private addresses are allowed. `host`, when given and
        different, is the name or notation that led to `ip`; the message mentions it."""
        if self.allow_private:
            return
        reason = _non_public_reason(ip)
        if reason is None:
            return
        if host is None:
            raise URLRefusedError(f"URL refused: {ip} is {reason}; {_ADVICE}")
        host = host.strip("[]")
        if parse_ip_host(host) is None:
            raise URLRefusedError(f"URL refused: {host} resolves to {ip}, which is {reason}; {_ADVICE}")
        if isinstance(ip, ipaddress.IPv4Address) and host.removesuffix(".") != str(ip):
            raise URLRefusedError(
                f"URL refused: {host} is the IPv4 address {ip} written in another notation, "
                f"and {ip} is {reason}; {_ADVICE}"
            )
        raise URLRefusedError(f"URL refused: {host} is {reason}; {_ADVICE}")

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        """The addresses to connect to for `host`, every one checked: if ANY is not public the
        host is refused, so a resolver cannot mix a private address in among public ones.
        Resolution failures propagate as `OSError` (`socket.gaierror` from the system resolver)."""
        self._check_online()  # before the DNS lookup: a lookup is a request that leaves too
        literal = parse_ip_host(host)
        if literal is not None:
            self.check_ip(literal, host=host)
            return [literal]
        self._check_host_name(host)

        answers = await (self.resolver or system_resolver)(host, port)
        addresses: list[IPAddress] = []
        for answer in answers:
            ip = ipaddress.ip_address(answer)
            if ip not in addresses:
                addresses.append(ip)
        if not addresses:
            raise OSError(f"{host} has no IP address")
        for ip in addresses:
            self.check_ip(ip, host=host)
        return addresses

    def _check_online(self) -> None:
        if self.offline:
            raise URLRefusedError(
                "URL refused: this run is offline (--offline): no request leaves the machine except to the "
                "model endpoint; only documents of the local corpus can be read (visit_url with their source id)"
            )

    def _check_host_name(self, host: str) -> None:
        if self.allow_private:
            return
        name = host.lower().rstrip(".")
        if name in _LOCALHOST_NAMES or name.endswith(".localhost"):
            raise URLRefusedError(f"URL refused: {host} is the local machine (a loopback name); {_ADVICE}")


def _parse_url(url: str | httpx.URL) -> tuple[httpx.URL, str | None]:
    """The parsed URL, and the host as written when parsing had to rewrite it (else None)."""
    if isinstance(url, httpx.URL):
        return url, None
    try:
        return httpx.URL(url), None
    except httpx.InvalidURL as exc:
        # httpx rejects dotted hosts with leading zeros ("0177.0.0.1"), which inet_aton reads as
        # octal; rewrite such a host in canonical form so the address rule can judge it.
        rewritten = _canonicalize_dotted_host(url)
        if rewritten is not None:
            try:
                return httpx.URL(rewritten[0]), rewritten[1]
            except httpx.InvalidURL:
                pass
        # The URL itself is left out of the message: it may carry a password.
        raise URLRefusedError(f"URL refused: not a valid URL ({exc})") from None


def _canonicalize_dotted_host(url: str) -> tuple[str, str] | None:
    """`url` with a legacy IPv4 host rewritten in dotted-decimal form, and the host as written."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    userinfo, at, hostport = parts.netloc.rpartition("@")
    host, colon, port = hostport.partition(":")
    ip = None if host.startswith("[") else _parse_legacy_ipv4(host)
    if ip is None:
        return None
    return urlunsplit(parts._replace(netloc=f"{userinfo}{at}{ip}{colon}{port}")), host


# --------------------------------------------------------------------------------------------------
# Enforcement at connect time
# --------------------------------------------------------------------------------------------------


class PolicyNetworkBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that resolves the host itself, checks every address with the
    policy, and connects to a checked address — never to the name, so no second lookup can
    answer differently. TLS still verifies the certificate against the host name: httpcore passes
    that name to `start_tls` separately. Runs under asyncio (the runtime's event loop)."""

    def __init__(self, policy: URLPolicy, network: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._policy = policy
        # The network underneath; tests may substitute one that records or redirects connections.
        self._network = network if network is not None else httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            async with asyncio.timeout(timeout):
                addresses = await self._policy.resolve(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from None
        except URLRefusedError:
            raise
        except (OSError, ValueError) as exc:
            # Raised as httpcore's error so httpx reports it as the usual httpx.ConnectError.
            raise httpcore.ConnectError(f"could not resolve {host}: {exc}") from exc

        # Try each checked address in turn. With a deadline, each attempt gets an equal share of
        # what is left, so one unreachable address cannot use up the whole connect timeout.
        last_error: Exception | None = None
        for index, ip in enumerate(addresses):
            attempt_timeout = None
            if deadline is not None:
                attempt_timeout = (deadline - time.monotonic()) / (len(addresses) - index)
                if attempt_timeout <= 0:
                    break
            try:
                return await self._network.connect_tcp(
                    str(ip),
                    port,
                    timeout=attempt_timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last_error = exc
        if last_error is None:
            raise httpcore.ConnectTimeout(f"connecting to {host} timed out")
        raise last_error

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise URLRefusedError("URL refused: Unix sockets are never fetched")

    async def sleep(self, seconds: float) -> None:
        await self._network.sleep(seconds)


_DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's default


class PolicyTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport, with two additions: every request's URL goes through `check_url`
    (so a request can never skip the scheme and credential rules), and connections are made by a
    `PolicyNetworkBackend`. No proxy is ever configured, so none can route around the check."""

    def __init__(
        self,
        policy: URLPolicy,
        *,
        verify: ssl.SSLContext | bool = True,
        cert: str | tuple[str, str] | tuple[str, str, str] | None = None,
        http1: bool = True,
        http2: bool = False,
        limits: httpx.Limits | None = None,
        retries: int = 0,
        network: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        limits = limits if limits is not None else _DEFAULT_LIMITS
        # trust_env=True here only lets SSL_CERT_FILE / SSL_CERT_DIR choose the CA bundle; it
        # cannot route a request anywhere. Proxies are never configured (see make_client).
        ssl_context = httpx.create_ssl_context(verify=verify, cert=cert, trust_env=True)
        super().__init__(verify=ssl_context, trust_env=False, http1=http1, http2=http2, limits=limits)
        self._policy = policy
        # httpx.AsyncHTTPTransport (0.28) gives no way to pass a network backend to the httpcore
        # pool it builds, so the pool is replaced by one built the same way plus the backend.
        # No connection has been made yet, so nothing is lost; `_pool` is the attribute every
        # request goes through (handle_async_request, aclose).
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=http1,
            http2=http2,
            retries=retries,
            network_backend=PolicyNetworkBackend(policy, network),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._policy.check_url(request.url)
        return await super().handle_async_request(request)


# Options that would let a request bypass the policy transport, or that the fetcher relies on.
_FIXED_CLIENT_OPTIONS = frozenset({"transport", "mounts", "proxy", "trust_env", "follow_redirects"})
_TRANSPORT_OPTIONS = ("verify", "cert", "http1", "http2", "limits")


def make_client(policy: URLPolicy, **kwargs: Any) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` that enforces `policy` on every request and connection.

    Redirects are not followed (`follow_redirects=False`): the fetcher follows them one hop at a
    time and checks each `Location` with `policy.check_url`. Environment proxies are ignored
    (`trust_env=False`). Other keyword arguments (timeout, headers, limits, verify, …) are passed
    on; `transport`, `mounts`, `proxy`, `trust_env` and `follow_redirects` are fixed and refused.
    A refused URL or address raises `URLRefusedError` from the request call itself.
    """
    fixed = sorted(_FIXED_CLIENT_OPTIONS & kwargs.keys())
    if fixed:
        raise TypeError(f"make_client() fixes {', '.join(fixed)}; they cannot be passed")
    transport_options = {name: kwargs.pop(name) for name in _TRANSPORT_OPTIONS if name in kwargs}
    transport = PolicyTransport(policy, **transport_options)
    return httpx.AsyncClient(transport=transport, follow_redirects=False, trust_env=False, **kwargs)
