"""Connection limits of the MCP endpoint: half-open connections are closed, live ones are capped
(item 2). uvicorn alone keeps a connection that sends no bytes, part of its headers or
part of its body open for as long as the peer likes (its `timeout_keep_alive` only runs between
requests, `limit_concurrency` answers 503 but frees no descriptor), so a local process without
the token could hold every file descriptor of the host and make every MCP call time out.

```
accept (≤ ACCEPT_BATCH per loop turn) ─► GuardedH11Protocol.connection_made
   ConnectionTable.admit: over the cap? close the oldest half-open one, else the oldest idle one,
                          else the oldest that reads nothing, else refuse the newcomer
   phase     what is awaited                       closed when
   headers   request line + headers (from accept,  HEADER_TIMEOUT_S after the first byte (or the
             or from a later request's 1st byte)   accept), however slowly the bytes drip in
   body      the rest of a request body            BODY_IDLE_TIMEOUT_S without a byte
   serving   the handler (a POST, an SSE stream)   never by this module (the app ends it)
   idle      the next keep-alive request           KEEP_ALIVE_TIMEOUT_S (uvicorn's own timer)
   any       the peer to read what we wrote        WRITE_STALL_TIMEOUT_S with the write buffer full
```

Rules and numbers:
- At most `max_connections` live HTTP connections: MAX_CONNECTIONS (128), or half the process's
  file-descriptor soft limit (POSIX RLIMIT_NOFILE) if that is lower. A loopback provider has a
  few desktop hosts, each with a connection or two (one may be a long-lived SSE stream).
- A new connection over the cap closes the oldest half-open one (headers or body phase, oldest by
  the time it entered that phase), else the oldest idle keep-alive one, else the oldest one whose
  peer stopped reading (write buffer over uvicorn's high-water mark: a token-less peer can get
  there by pipelining requests and reading none of the 401s). A connection being served (headers
  complete, body received, handler running or SSE stream open, its peer reading) is never closed
  for a newcomer; when every slot is being served, the newcomer is closed at once.
- Closing is `transport.abort()`: the descriptor is freed even when the peer reads nothing.
- The accept loop takes ACCEPT_BATCH connections per loop turn (asyncio's `backlog` argument),
  so the descriptors of one batch stay well under the limit before the table sees them; the
  kernel's listen queue is widened to LISTEN_QUEUE afterwards (`widen_listen_queue`) so a real
  client's SYN is not dropped (a dropped SYN costs 1 s) while a flood is being drained.
- Accept errors (EMFILE and friends, which asyncio logs with a traceback per failed accept) and
  closed connections are logged within a LogBudget (log_budget.py: the first few one by one, then
  counted and summarized; `AcceptErrorSummary`, `ConnectionTable`): a flood never rotates the log
  away.
"""

from __future__ import annotations

import asyncio
import enum
import errno
import logging
import socket
import sys
from dataclasses import dataclass
from typing import Any, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from native_host.provider.http.log_budget import LogBudget

log = logging.getLogger(__name__)

HEADER_TIMEOUT_S: Final = 5.0
"""A request's line and headers must be complete this long after the connection was accepted
(or after the first byte of a later request on a kept-alive connection), in seconds."""

BODY_IDLE_TIMEOUT_S: Final = 5.0
"""A request body may pause this long between two reads, in seconds."""

KEEP_ALIVE_TIMEOUT_S: Final = 5.0
"""An idle kept-alive connection is closed after this long, in seconds (uvicorn's `timeout_keep_alive`)."""

WRITE_STALL_TIMEOUT_S: Final = 15.0
"""A connection whose write buffer stays over the high-water mark this long is closed, in seconds
(the peer reads nothing; an SSE client that is merely slow drains it now and then)."""

MAX_CONNECTIONS: Final = 128
"""At most this many live HTTP connections (lowered to half the descriptor soft limit)."""

ACCEPT_BATCH: Final = 16
"""Connections accepted per event-loop turn (asyncio's accept loop; uvicorn's `backlog`)."""

LISTEN_QUEUE: Final = 2048
"""The kernel's queue of connections not yet accepted (uvicorn's default backlog); the kernel caps
it at net.core.somaxconn."""

_ACCEPT_ERROR_MESSAGE: Final = "socket.accept() out of system resource"
"""The context message asyncio's accept loop reports EMFILE, ENFILE, ENOBUFS and ENOMEM with."""


@dataclass(frozen=True)
class ConnectionLimits:
    """The numbers above, for one endpoint (seconds and counts); tests may lower them."""

    header_timeout_s: float = HEADER_TIMEOUT_S
    body_idle_timeout_s: float = BODY_IDLE_TIMEOUT_S
    keep_alive_timeout_s: float = KEEP_ALIVE_TIMEOUT_S
    write_stall_timeout_s: float = WRITE_STALL_TIMEOUT_S
    max_connections: int = MAX_CONNECTIONS

    def effective_max_connections(self) -> int:
        """`max_connections`, or half the RLIMIT_NOFILE soft limit if lower (but not below 8;
        POSIX: Windows has no such limit)."""
        if sys.platform == "win32":
            return self.max_connections
        import resource  # POSIX only

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return self.max_connections
        return min(self.max_connections, max(8, soft // 2))


class Phase(enum.Enum):
    """What a connection waits for (the table in the module docstring)."""

    HEADERS = "headers"
    BODY = "body"
    SERVING = "serving"
    IDLE = "idle"


HALF_OPEN: Final = frozenset({Phase.HEADERS, Phase.BODY})


class Standing(enum.Enum):
    """Where a connection stands in the eviction order (ConnectionTable.admit), first first."""

    HALF_OPEN = "half-open"
    IDLE = "idle"
    NOT_READING = "not reading"
    SERVING = "serving"


EVICTION_ORDER: Final = (Standing.HALF_OPEN, Standing.IDLE, Standing.NOT_READING)
"""Who is closed for a newcomer over the cap: the oldest of the first non-empty group."""


class ConnectionTable:
    """The live HTTP connections of one endpoint, capped at `limits.effective_max_connections()`.
    Each standing keeps its connections in the order they got there, so finding the one to close
    costs O(1) per accept."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.max_connections = limits.effective_max_connections()
        self._standing: dict[GuardedH11Protocol, Standing] = {}
        self._queues: dict[Standing, dict[GuardedH11Protocol, None]] = {group: {} for group in Standing}
        self._closed = LogBudget(log, verb="closed", noun=("HTTP connection", "HTTP connections"))

    def __len__(self) -> int:
        return len(self._standing)

    def admit(self, newcomer: GuardedH11Protocol) -> bool:
        """Add `newcomer`; over the cap, close the oldest half-open connection, else the oldest
        idle one, else the oldest that reads nothing. Returns False (and adds nothing) when every
        other connection is being served to a reading peer."""
        if len(self._standing) >= self.max_connections:
            group = next((group for group in EVICTION_ORDER if self._queues[group]), None)
            if group is None:
                self.closed("refused: every connection is being served")
                return False
            victim = next(iter(self._queues[group]))
            victim.drop(f"dropped: over {self.max_connections} connections, oldest {group.value}")
        self._standing[newcomer] = standing = newcomer.standing
        self._queues[standing][newcomer] = None
        return True

    def moved(self, connection: GuardedH11Protocol) -> None:
        """`connection` may stand elsewhere now: move it to the end of its new group. No-op for a
        connection not in the table."""
        old = self._standing.get(connection)
        new = connection.standing
        if old is None or old is new:
            return
        del self._queues[old][connection]
        self._queues[new][connection] = None
        self._standing[connection] = new

    def discard(self, connection: GuardedH11Protocol) -> None:
        """Forget `connection` (it is closed or closing); no error if it is not in the table."""
        old = self._standing.pop(connection, None)
        if old is not None:
            del self._queues[old][connection]

    def closed(self, reason: str) -> None:
        """Count one connection closed by this module (summarized in the log)."""
        self._closed.event(reason, f"closed an HTTP connection of the MCP endpoint: {reason}")

    def close(self) -> None:
        """Write the log summary of what is counted (the endpoint stopped)."""
        self._closed.flush()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the phase timers and the cap of the module docstring. Use
    `protocol_class(table)` for the class to pass as `uvicorn.Config(http=...)`."""

    table: ConnectionTable

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.phase = Phase.HEADERS
        self._timer: asyncio.TimerHandle | None = None
        self._stall: asyncio.TimerHandle | None = None
        self._served = False

    @property
    def standing(self) -> Standing:
        """Half-open (headers or body phase), idle, not reading (the write buffer stays over the
        high-water mark), or serving."""
        if self.phase in HALF_OPEN:
            return Standing.HALF_OPEN
        if self.phase is Phase.IDLE:
            return Standing.IDLE
        return Standing.NOT_READING if self._stall is not None else Standing.SERVING

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._enter(Phase.HEADERS, self.table.limits.header_timeout_s)
        if not self.table.admit(self):
            self._cancel_timer()
            transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        self._cancel_stall()
        self.table.discard(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._update(data_arrived=True)

    def on_response_complete(self) -> None:
        self._served = True
        super().on_response_complete()
        self._update(data_arrived=False)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall is None:
            self._stall = self.loop.call_later(self.table.limits.write_stall_timeout_s, self._on_stall)
            self.table.moved(self)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._cancel_stall()

    def drop(self, reason: str) -> None:
        """Close the connection now (`abort`: the descriptor is freed even if the peer reads
        nothing) and count it under `reason`."""
        self._cancel_timer()
        self._cancel_stall()
        self.table.discard(self)
        self.table.closed(reason)
        if not self.transport.is_closing():
            self.transport.abort()

    def _update(self, *, data_arrived: bool) -> None:
        """Move to the phase h11's states say, (re)arming the timer of the new phase."""
        if self.transport.is_closing():
            return
        theirs = self.conn.their_state
        if theirs is h11.SEND_BODY:
            if data_arrived or self.phase is not Phase.BODY:  # an idle timer: each read restarts it
                self._enter(Phase.BODY, self.table.limits.body_idle_timeout_s)
        elif theirs is h11.IDLE:
            buffered = data_arrived or bool(self.conn.trailing_data[0])
            if buffered or not self._served:
                if self.phase is not Phase.HEADERS:  # a header deadline, not restarted by each byte
                    self._enter(Phase.HEADERS, self.table.limits.header_timeout_s)
            elif self.phase is not Phase.IDLE:
                self._enter(Phase.IDLE, None)  # uvicorn's keep-alive timer runs
        elif self.phase is not Phase.SERVING:
            self._enter(Phase.SERVING, None)

    def _enter(self, phase: Phase, timeout_s: float | None) -> None:
        self._cancel_timer()
        self.phase = phase
        self.table.moved(self)
        if timeout_s is not None:
            self._timer = self.loop.call_later(timeout_s, self._on_timeout)

    def _on_timeout(self) -> None:
        self._timer = None
        if self.phase is Phase.BODY and self.flow.read_paused:
            # we stopped reading (the handler has not taken the body yet): not the peer's delay
            self._enter(Phase.BODY, self.table.limits.body_idle_timeout_s)
            return
        self.drop(f"timed out waiting for the request {self.phase.value}")

    def _on_stall(self) -> None:
        self._stall = None
        self.drop("timed out: the peer read nothing")

    def _cancel_stall(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
            self.table.moved(self)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def protocol_class(table: ConnectionTable) -> type[H11Protocol]:
    """A GuardedH11Protocol subclass bound to `table` (uvicorn builds protocols from a class
    with fixed arguments, so the table travels as a class attribute)."""
    return type("GuardedH11ProtocolFor", (GuardedH11Protocol,), {"table": table})


def widen_listen_queue(sock: socket.socket) -> None:
    """Set the listening `sock`'s kernel queue to LISTEN_QUEUE after asyncio set it to
    ACCEPT_BATCH (asyncio uses one number for both; Linux and macOS accept a second listen())."""
    sock.listen(LISTEN_QUEUE)


class AcceptErrorSummary:
    """A loop exception handler that summarizes asyncio's accept errors (EMFILE, ENFILE, ENOBUFS,
    ENOMEM: by default a traceback per failed accept, up to `backlog` per loop turn) and passes
    every other context to the handler that was there before. `install` / `uninstall`."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._previous = loop.get_exception_handler()
        self._summary = LogBudget(
            log,
            verb="could not accept",
            noun=("connection", "connections"),
            line_level=logging.WARNING,
            first=1,
        )

    def install(self) -> None:
        """Make this the loop's exception handler."""
        self._loop.set_exception_handler(self._handle)

    def uninstall(self) -> None:
        """Put the previous handler back (if this one is still installed) and stop the summary."""
        if self._loop.get_exception_handler() == self._handle:
            self._loop.set_exception_handler(self._previous)
        self._summary.flush()

    def _handle(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if context.get("message") == _ACCEPT_ERROR_MESSAGE and isinstance(exc, OSError):
            code = errno.errorcode.get(exc.errno or 0, str(exc.errno))
            self._summary.event(code, f"a listening socket could not accept a connection: {code}")
            return
        if self._previous is not None:
            self._previous(loop, context)
        else:
            loop.default_exception_handler(context)
