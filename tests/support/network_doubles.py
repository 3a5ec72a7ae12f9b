"""A network for the URL policy's connect-time backend to sit on, in tests: no internet."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import httpcore


@dataclass
class RecordingNetwork(httpcore.AsyncNetworkBackend):
    """Records every connection attempt. Addresses listed in `reroute` are "public hosts" played by a
    local server on that port, those in `local` by a local server on the port asked for; any other
    connection fails, as it would with no internet."""

    reroute: dict[str, int] = field(default_factory=dict)
    attempts: list[tuple[str, int]] = field(default_factory=list)
    real: httpcore.AsyncNetworkBackend = field(default_factory=httpcore.AnyIOBackend)
    local: frozenset[str] = frozenset()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.attempts.append((host, port))
        if host in self.reroute or host in self.local:
            return await self.real.connect_tcp("127.0.0.1", self.reroute.get(host, port), timeout=timeout)
        raise httpcore.ConnectError(f"no network in tests ({host})")

    async def sleep(self, seconds: float) -> None:
        await self.real.sleep(seconds)
