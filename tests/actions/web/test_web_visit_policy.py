"""Every URL-policy refusal, through visit_url (private addresses NOT allowed): each one is a clear
observation, and the server the URL points at receives no request, not even a connection."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import pytest

from actions.web.fetch import Fetcher
from actions.web.visit import visit_url
from agent_runtime.domain.sources.ledger import Ledger
from agent_runtime.engine.run_context import ActionContext
from sandbox.url_policy import PolicyTransport, URLPolicy
from tests.support.network_doubles import RecordingNetwork
from tests.support.web_server import ContextFactory, Route, WebServer

ADVICE = "only public internet addresses may be fetched (a person can allow private addresses with --allow-private-urls)"

# (URL with {port} for the loopback server, words the observation must contain)
ADDRESS_CASES = [
    ("http://localhost:{port}/", "localhost is the local machine"),
    ("http://127.0.0.1:{port}/", "127.0.0.1 is a loopback address"),
    ("http://127.1:{port}/", "127.1 is the IPv4 address 127.0.0.1 written in another notation"),
    ("http://2130706433:{port}/", "2130706433 is the IPv4 address 127.0.0.1"),
    ("http://0x7f000001:{port}/", "0x7f000001 is the IPv4 address 127.0.0.1"),
    ("http://0177.0.0.1:{port}/", "0177.0.0.1 is the IPv4 address 127.0.0.1"),
    ("http://[::1]:{port}/", "::1 is a loopback address"),
    ("http://0.0.0.0:{port}/", "0.0.0.0 is the unspecified address"),
    ("http://[::ffff:127.0.0.1]:{port}/", "IPv4-mapped address that embeds 127.0.0.1"),
    ("http://[2002:7f00:1::]:{port}/", "6to4 address that embeds 127.0.0.1"),
    ("http://[64:ff9b::7f00:1]:{port}/", "NAT64 address that embeds 127.0.0.1"),
    ("http://10.1.2.3:{port}/", "10.0.0.0/8"),
    ("http://172.16.0.1:{port}/", "172.16.0.0/12"),
    ("http://192.168.0.1:{port}/", "192.168.0.0/16"),
    ("http://169.254.169.254/latest/meta-data/", "where cloud metadata services live"),
    ("http://100.64.0.1:{port}/", "100.64.0.0/10"),
    ("http://224.0.0.1:{port}/", "multicast"),
    ("http://240.0.0.1:{port}/", "reserved"),
]


async def visit(ctx: ActionContext, url: str) -> str:
    obs = await visit_url.run(ctx, {"url": url})
    assert obs.error
    return str(obs.text)


@pytest.mark.parametrize(("template", "words"), ADDRESS_CASES, ids=[c[0] for c in ADDRESS_CASES])
async def test_non_public_addresses_are_refused_and_never_contacted(
    web_server: WebServer, make_ctx: ContextFactory, template: str, words: str
) -> None:
    web_server.routes["/"] = Route(body=b"<html><body>secret admin page</body></html>")
    ctx = make_ctx()  # allow_private_urls is off: the default
    url = template.format(port=web_server.port)

    text = await visit(ctx, url)

    assert "URL refused: " in text and words in text and ADVICE in text
    assert "secret admin page" not in text
    assert web_server.untouched
    assert len(Ledger.load(ctx.workspace.root / "sources")) == 0


SYNTAX_CASES = [
    (
        "file:///etc/passwd",
        "the scheme 'file:' is not allowed; only http:// and https:// URLs may be fetched",
    ),
    ("ftp://127.0.0.1:{port}/", "the scheme 'ftp:' is not allowed"),
    ("gopher://127.0.0.1:{port}/_GET", "the scheme 'gopher:' is not allowed"),
    ("javascript:alert(1)", "the scheme 'javascript:' is not allowed"),
    ("http://user:secret@127.0.0.1:{port}/", "carries a user name or password"),
    ("127.0.0.1:{port}/admin", "has no scheme; give a full http:// or https:// URL"),
    ("//127.0.0.1:{port}/", "has no scheme"),
]


@pytest.mark.parametrize("allow_private", [False, True])
@pytest.mark.parametrize(("template", "words"), SYNTAX_CASES, ids=[c[0] for c in SYNTAX_CASES])
async def test_other_schemes_and_credentials_are_refused_even_with_private_urls_allowed(
    web_server: WebServer, make_ctx: ContextFactory, template: str, words: str, allow_private: bool
) -> None:
    ctx = make_ctx(allow_private_urls=allow_private)

    text = await visit(ctx, template.format(port=web_server.port))

    assert "URL refused: " in text and words in text
    assert "secret" not in text  # a password is never repeated back
    assert web_server.untouched


# --------------------------------------------------------------------------------------------------
# Names and redirects: the fetcher is given a resolver and a network that plays the public internet
# --------------------------------------------------------------------------------------------------


def use_fake_dns(ctx: ActionContext, answers: dict[str, Sequence[str]], network: RecordingNetwork) -> None:
    async def resolve(host: str, port: int) -> Sequence[str]:
        return answers[host]

    policy = URLPolicy(resolver=resolve)
    client = httpx.AsyncClient(
        transport=PolicyTransport(policy, network=network), follow_redirects=False, trust_env=False, timeout=5
    )
    ctx.services.get(Fetcher, lambda: Fetcher(policy, client=client))


async def test_a_public_name_that_resolves_to_a_private_address_is_refused(
    web_server: WebServer, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx()
    network = RecordingNetwork()
    use_fake_dns(ctx, {"intranet.example": ["10.0.0.7"], "sneaky.example": ["127.0.0.1"]}, network)

    first = await visit(ctx, "http://intranet.example/wiki")
    second = await visit(ctx, f"http://sneaky.example:{web_server.port}/")

    assert "URL refused: intranet.example resolves to 10.0.0.7" in first and ADVICE in first
    assert "URL refused: sneaky.example resolves to 127.0.0.1, which is a loopback address" in second
    assert network.attempts == []
    assert web_server.untouched


async def test_a_redirect_from_a_public_url_to_a_private_one_is_refused(
    web_server: WebServer, second_server: WebServer, make_ctx: ContextFactory
) -> None:
    # web_server plays the public site news.example (93.184.215.14); its story redirects to the
    # private second_server on loopback.
    web_server.routes["/story"] = Route(
        302, content_type=None, headers={"Location": f"{second_server.base}/admin"}
    )
    second_server.routes["/admin"] = Route(body=b"<html><body>router admin</body></html>")
    ctx = make_ctx()
    network = RecordingNetwork(reroute={"93.184.215.14": web_server.port})
    use_fake_dns(ctx, {"news.example": ["93.184.215.14"]}, network)

    text = await visit(ctx, f"http://news.example:{web_server.port}/story")

    assert "URL refused: 127.0.0.1 is a loopback address" in text
    assert web_server.requests == ["/story"]
    assert second_server.untouched
    assert all(host == "93.184.215.14" for host, _ in network.attempts)


async def test_a_public_page_is_fetched_through_the_same_fetcher(
    web_server: WebServer, make_ctx: ContextFactory
) -> None:
    # The control case: the same set-up lets a public address through, so the refusals above are
    # the policy's doing and not a broken test network.
    web_server.routes["/story"] = Route(
        body=b"<html><head><title>Public story</title></head><body><p>Hello</p></body></html>"
    )
    ctx = make_ctx()
    network = RecordingNetwork(reroute={"93.184.215.14": web_server.port})
    use_fake_dns(ctx, {"news.example": ["93.184.215.14"]}, network)

    obs = await visit_url.run(ctx, {"url": f"http://news.example:{web_server.port}/story"})

    assert not obs.error, obs.text
    assert "Title: Public story" in obs.text
    assert web_server.requests == ["/story"]
