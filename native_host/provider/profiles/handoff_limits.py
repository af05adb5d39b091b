"""What one follower (a host with the provider's token) or a token-less local process can make
the provider's hand-off hold: message sizes, held trees, connections (docs/internals/native-host.md
"Threat model", "A hostile follower or hand-off client").

```
accept ─► CappedServerConnection.connection_made: HandoffSlots.admit
            pending (handshake, hello) over MAX_PENDING_HANDSHAKES → the oldest pending is aborted
            over MAX_HANDOFF_CONNECTIONS live → the newcomer is aborted
follower.hello ─► HandoffSlots.promote: over MAX_FOLLOWERS → closed 1013 with the reason
each message   ─► the WebSocket's message limit: MAX_TREE_MESSAGE_BYTES, raised to
                  MAX_MESSAGE_BYTES only while a `tools.call` or `page.read` of ours waits
                  (MessageWindow); over it → closed 1009 before the payload is read
               ─► over MAX_TREE_MESSAGE_BYTES: only a reply (`{"type":"result"|"error",…`)
               ─► parsed in a daemon thread when over PARSE_IN_THREAD_BYTES (parse_off_loop)
tree           ─► kept only while every follower's kept trees together stay within
                  MAX_FOLLOWER_TREES_BYTES (TreeBudget); else left out of `current`, logged
```

Parsing in a thread keeps pure-Python work (the depth check, the merge) off the loop, but
`json.loads` and pydantic hold the GIL while they run, so the loop's delay is bounded by the
size cap, not by the thread: at MAX_TREE_MESSAGE_BYTES a parse takes tens of milliseconds.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from websockets.asyncio.server import ServerConnection

from native_host.protocol.handoff import (
    BIG_REPLY_REQUESTS,
    MAX_MESSAGE_BYTES,
    MAX_TREE_MESSAGE_BYTES,
    FollowerHello,
    FollowerToolsChanged,
    FollowerTree,
    HandoffError,
    HandoffResult,
    parse_follower_message,
)
from native_host.provider.daemon_threads import run_in_daemon_thread
from native_host.provider.http.log_budget import LogBudget

log = logging.getLogger(__name__)

MAX_FOLLOWERS: Final = 16
"""At most this many followers at once (one per other profile of the browser: a person rarely
has more than a handful open); the next authenticated follower is closed with code 1013."""

MAX_PENDING_HANDSHAKES: Final = 8
"""At most this many hand-off connections not yet followers (handshake, or waiting for
`follower.hello`); a newcomer over it aborts the oldest of them (each has HEADER_TIMEOUT_S for
its handshake and HELLO_TIMEOUT_S for its hello anyway)."""

MAX_HANDOFF_CONNECTIONS: Final = MAX_FOLLOWERS + MAX_PENDING_HANDSHAKES
"""Live hand-off connections in all: followers and pending ones."""

MAX_FOLLOWER_TREES_BYTES: Final = 2 * MAX_TREE_MESSAGE_BYTES
"""The pushed (or asked) trees of every follower together that the provider keeps and merges into
`current`, in bytes of the messages that carried them: a tree that would push the sum over it is
left out of `current` (and not kept), so the merged answer stays within our own tree plus this."""

MAX_QUEUED_MESSAGES: Final = 4
"""Messages websockets holds received but not yet handled, per connection (its `max_queue`; the
default 16 would let one follower park 16 x 2 MiB); beyond it, reading pauses."""

PARSE_IN_THREAD_BYTES: Final = 256 << 10
"""Messages over this many bytes are parsed in a daemon thread (daemon_threads.py)."""

CLOSE_TOO_BIG: Final = 1009
"""WebSocket close code "message too big" (RFC 6455)."""
CLOSE_TRY_AGAIN: Final = 1013
"""WebSocket close code "try again later" (RFC 6455 registry)."""

_REPLY_PREFIXES: Final = (b'{"type":"result","id":', b'{"type":"error","id":')
"""How a reply starts on the wire (protocol/handoff.py `encode`: fields in declaration order)."""

CLOSED: Final = LogBudget(log, verb="closed", noun=("hand-off connection", "hand-off connections"))
"""Hand-off connections closed by these limits (rate-limited: a flood leaves a few lines)."""

LEFT_OUT: Final = LogBudget(log, verb="left out", noun=("follower tree", "follower trees"))
"""Follower trees left out of `current` by the budget."""


def is_reply(raw: str | bytes) -> bool:
    """Whether `raw` starts as a `result` or `error` reply does (the only messages that may be over
    MAX_TREE_MESSAGE_BYTES)."""
    head = raw[:32].encode() if isinstance(raw, str) else bytes(raw[:32])
    return head.startswith(_REPLY_PREFIXES)


async def parse_off_loop(
    raw: str | bytes,
) -> FollowerHello | FollowerToolsChanged | FollowerTree | HandoffResult | HandoffError:
    """`parse_follower_message(raw)`, in a daemon thread when `raw` is over PARSE_IN_THREAD_BYTES.
    Raises ValueError as it does."""
    if len(raw) <= PARSE_IN_THREAD_BYTES:
        return parse_follower_message(raw)
    return await run_in_daemon_thread(parse_follower_message, raw)


class MessageWindow:
    """The largest message one follower connection takes: MAX_TREE_MESSAGE_BYTES, or
    MAX_MESSAGE_BYTES while one of our BIG_REPLY_REQUESTS waits for its reply. websockets reads
    the limit at each frame's header, so a frame over it closes the link (1009) unread."""

    requests: Final = BIG_REPLY_REQUESTS

    def __init__(self, connection: Any) -> None:
        self._protocol = getattr(connection, "protocol", None)  # tests pass a stand-in without one
        self._waiting = 0
        self._set(MAX_TREE_MESSAGE_BYTES)

    @property
    def limit(self) -> int:
        """The limit now, in bytes."""
        return MAX_MESSAGE_BYTES if self._waiting else MAX_TREE_MESSAGE_BYTES

    def open(self) -> None:
        """A big reply may come (one more of our BIG_REPLY_REQUESTS waits)."""
        self._waiting += 1
        self._set(MAX_MESSAGE_BYTES)

    def close(self) -> None:
        """That request got its reply, failed or timed out."""
        self._waiting = max(0, self._waiting - 1)
        self._set(self.limit)

    def _set(self, limit: int) -> None:
        if self._protocol is not None:
            self._protocol.max_message_size = limit


class TreeBudget:
    """The bytes of every follower's kept tree (MAX_FOLLOWER_TREES_BYTES in all), by follower `k`."""

    def __init__(self, limit: int = MAX_FOLLOWER_TREES_BYTES) -> None:
        self.limit = limit
        self._held: dict[int, int] = {}

    def claim(self, number: int, size: int) -> bool:
        """Whether follower `number`'s tree of `size` bytes fits beside the others' (it replaces
        this follower's last one); when it does, it is counted, else this follower holds none."""
        others = sum(n for k, n in self._held.items() if k != number)
        if others + size > self.limit:
            self._held.pop(number, None)
            return False
        self._held[number] = size
        return True

    def release(self, number: int) -> None:
        """Follower `number` holds no tree (forgotten, or it disconnected)."""
        self._held.pop(number, None)

    def fits(self, number: int, size: int) -> bool:
        """Whether an asked tree of `size` bytes from follower `number` fits beside the kept ones."""
        return sum(n for k, n in self._held.items() if k != number) + size <= self.limit


class HandoffSlots:
    """Live hand-off connections: pending ones (oldest first) and followers, capped as above."""

    def __init__(
        self,
        max_pending: int = MAX_PENDING_HANDSHAKES,
        max_followers: int = MAX_FOLLOWERS,
    ) -> None:
        self.max_pending = max_pending
        self.max_followers = max_followers
        self.pending: dict[CappedServerConnection, None] = {}
        self.followers: set[CappedServerConnection] = set()

    def admit(self, connection: CappedServerConnection) -> bool:
        """A new connection: over the pending cap the oldest pending one is aborted; over the
        live cap (followers full too) the newcomer is refused (False)."""
        if len(self.pending) >= self.max_pending:
            oldest = next(iter(self.pending))
            self.discard(oldest)
            CLOSED.event("pending", f"aborted a pending hand-off connection: over {self.max_pending} pending")
            oldest.abort()
        if len(self.pending) + len(self.followers) >= self.max_pending + self.max_followers:
            CLOSED.event("full", "refused a hand-off connection: every slot is taken")
            return False
        self.pending[connection] = None
        return True

    def promote(self, connection: ServerConnection) -> bool:
        """`connection` sent its `follower.hello`: it becomes a follower, unless MAX_FOLLOWERS are
        connected (False; the caller closes it with the reason)."""
        if not isinstance(connection, CappedServerConnection) or connection not in self.pending:
            return True  # not one of ours (tests drive FollowerConnection directly)
        if len(self.followers) >= self.max_followers:
            CLOSED.event("followers", f"refused a follower: {self.max_followers} are connected")
            return False
        del self.pending[connection]
        self.followers.add(connection)
        return True

    def discard(self, connection: CappedServerConnection) -> None:
        """Forget `connection` (closed)."""
        self.pending.pop(connection, None)
        self.followers.discard(connection)


class CappedServerConnection(ServerConnection):
    """websockets' server connection, counted in `slots` from the accept (before any byte is read,
    so a refused connection costs one accept and one close). Use `connection_class(slots)`."""

    slots: HandoffSlots

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        if not self.slots.admit(self):
            transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.slots.discard(self)
        super().connection_lost(exc)

    def abort(self) -> None:
        """Close now, freeing the descriptor even if the peer reads nothing."""
        if not self.transport.is_closing():
            self.transport.abort()


def connection_class(slots: HandoffSlots) -> type[CappedServerConnection]:
    """A CappedServerConnection subclass bound to `slots` (websockets builds connections from a
    class with fixed arguments, so the slots travel as a class attribute)."""
    return type("CappedServerConnectionFor", (CappedServerConnection,), {"slots": slots})


def flush_logs() -> None:
    """Write the summaries of what the budgets counted (the server stops)."""
    CLOSED.flush()
    LEFT_OUT.flush()

