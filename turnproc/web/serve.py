"""How `turnproc web` serves the application: uvicorn, with guards against slow
and greedy clients (docs/web.md, "Slow clients").

uvicorn waits for a request's header and body as long as the client likes,
and counts every open connection against its concurrency limit: 200
connections that send a byte now and then made every other request a 503.
The server here

- gives a request READ_SECONDS from its first byte (or from the end of the
  previous response on a kept-alive connection) to arrive whole, header and
  body; a client that is slower is disconnected;
- lets one client address hold at most PER_CLIENT connections at once (the
  trusted proxy's address excepted: behind nginx every connection is its,
  and nginx holds slow clients off itself); further connections from that
  address are closed as they come;
- keeps idle connections KEEP_ALIVE_SECONDS, bounds a header block to
  MAX_HEADER_BYTES, and answers 503 only past MAX_CONNECTIONS connections.
"""

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

READ_SECONDS = 10.0
PER_CLIENT = 16
KEEP_ALIVE_SECONDS = 5
MAX_HEADER_BYTES = 16 * 1024
MAX_CONNECTIONS = 1000
TRUSTED_PROXY = "127.0.0.1"


@dataclass(frozen=True)
class Guards:
    read_seconds: float = READ_SECONDS
    per_client: int = PER_CLIENT
    trusted: frozenset[str] = field(default_factory=lambda: frozenset({TRUSTED_PROXY}))


def guarded_protocol(guards: Guards) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol with `guards` (see the module docstring);
    one class per server, holding that server's count of connections by
    client address (the event loop's thread alone touches it)."""
    open_by_client: Counter[str] = Counter()

    class Guarded(H11Protocol):
        counted: str | None = None  # the client address this connection counts against
        timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            if host not in guards.trusted:
                if open_by_client[host] >= guards.per_client:
                    transport.abort()
                    return
                open_by_client[host] += 1
                self.counted = host
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self.counted is not None:
                open_by_client[self.counted] -= 1
                if open_by_client[self.counted] <= 0:
                    del open_by_client[self.counted]
                self.counted = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.DONE:
                self._disarm()  # the request is in whole: the application has it

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this connection gets its own time

        def _arm(self) -> None:
            self._disarm()
            self.timer = self.loop.call_later(guards.read_seconds, self._too_slow)

        def _disarm(self) -> None:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

        def _too_slow(self) -> None:
            self.timer = None
            if self.conn.their_state is not h11.DONE and not self.transport.is_closing():
                self.transport.close()

    return Guarded


def server_config(app: Any, host: str, port: int, guards: Guards | None = None) -> uvicorn.Config:
    """The uvicorn configuration `turnproc web` runs `app` with."""
    guards = guards or Guards()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded_protocol(guards),
        # Behind a reverse proxy on the same machine, its X-Forwarded-For names the client.
        proxy_headers=True,
        forwarded_allow_ips=",".join(sorted(guards.trusted)),
        server_header=False,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        limit_concurrency=MAX_CONNECTIONS,
        log_level="info",
        access_log=False,  # a player's page address is his key: it stays out of the logs
    )
