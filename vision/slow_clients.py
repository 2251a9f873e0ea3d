"""uvicorn's HTTP/1.1 protocol with a time limit on clients that send slowly or nothing.

uvicorn times out a connection only between requests, and any byte restarts that clock: a client
that connects and sends nothing, or sends its headers a byte every few seconds, or stops halfway
through an upload, holds its connection (and a file descriptor) for ever. A table's server on an
open network would run out of them. Here a request's headers must arrive within `client_timeout_s`
of the connection (or of the previous answer), and an upload may pause no longer than that.
The limit is built on uvicorn's h11 protocol, which `mjlens serve` therefore always uses (its
httptools one, when installed, parses faster but would need the same limit written for it).
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class SlowClientLimits(H11Protocol):
    """`uvicorn.Config(http=SlowClientLimits)`, or `with_timeout(seconds)` for another limit."""

    client_timeout_s: float = 20.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._client_clock: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._start_client_clock()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # Headers trickled in do not restart the clock (their limit is a deadline); upload chunks do.
        if self.conn.their_state is h11.SEND_BODY:
            self._start_client_clock()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._start_client_clock()  # for the next request's headers on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_client_clock()
        super().connection_lost(exc)

    def _start_client_clock(self) -> None:
        self._stop_client_clock()
        self._client_clock = self.loop.call_later(self.client_timeout_s, self._client_clock_ran_out)

    def _stop_client_clock(self) -> None:
        if self._client_clock is not None:
            self._client_clock.cancel()
            self._client_clock = None

    def _client_clock_ran_out(self) -> None:
        self._client_clock = None
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.SEND_BODY and self.flow.read_paused:
            self._start_client_clock()  # the server stopped reading the upload, not the client sending it
        elif state in (h11.IDLE, h11.SEND_BODY):
            self.transport.close()  # headers still incomplete, or an upload stalled


def with_timeout(seconds: float) -> type[SlowClientLimits]:
    """The protocol class with its limit set: uvicorn builds one protocol per connection itself."""
    return type("SlowClientLimits", (SlowClientLimits,), {"client_timeout_s": seconds})
