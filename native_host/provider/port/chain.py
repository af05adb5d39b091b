"""Requests to the extension: one shape from the call site to the native port (design.md §4).

```
call site   requester.request(CurrentRequest())            a protocol/native.py model, no id
              └─ Call(request, deadline_ms, id?)            the request's default deadline unless given
RequestChain  layer 1 (call, call_next) ─► layer 2 … ─► terminal.send(call)
              any layer may answer without calling next (the pushed tree: no I/O at all)
terminal      Bridge.send (the native port, `h-<n>`) · FollowerConnection.send (a follower, `p-<n>`)
```

Every requester is a `Requester`: `request` is written once, here; each kind says how it sends a
`Call` (`send`) and how it mints ids (`new_request_id`). The layers' order is written once, where
the provider is assembled (provider/serving.py).
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from native_host.protocol.native import HostRequest


@dataclass(frozen=True, slots=True)
class Call:
    """One request on its way to an extension: the typed `request`, how long its caller waits
    (`deadline_ms`, ms) and the id the caller chose (`new_request_id()`; None: the terminal mints
    one). Layers pass it on unchanged or make a new one (`dataclasses.replace`)."""

    request: HostRequest
    deadline_ms: int
    id: str | None = None


Next = Callable[[Call], Awaitable[Any]]
"""The rest of the chain after a layer: sends `call` on and returns the reply's `result`."""


class Layer(Protocol):
    """One step of a RequestChain: answer `call` itself or return `await call_next(call)` (with the
    same or another Call). Raises what the chain raises."""

    async def __call__(self, call: Call, call_next: Next) -> Any:
        """The `result` for `call`."""
        ...


class Requester(ABC):
    """What reaches an extension: `request(model)` returns the reply's `result`.

    Raises DeadlineExceeded when no reply comes within the deadline, ExtensionError (the
    extension's `code`) for an `error` reply, ProviderUnavailable when the way to the extension is
    closed; a layer may raise its own WebctxError (tree_cache.py: TooDeep)."""

    @abstractmethod
    def new_request_id(self) -> str:
        """A fresh request id, for a request a later message refers to (`tools.cancel`)."""

    @abstractmethod
    async def send(self, call: Call) -> Any:
        """Send `call` and return the reply's `result`."""

    async def request(
        self, request: HostRequest, *, deadline_ms: int | None = None, request_id: str | None = None
    ) -> Any:
        """Send `request`, waiting at most `deadline_ms` (default: the request's own,
        `HostRequest.default_deadline_ms`), with `request_id` if the caller chose one."""
        deadline = request.default_deadline_ms() if deadline_ms is None else deadline_ms
        return await self.send(Call(request, deadline, request_id))


class RequestChain(Requester):
    """`layers`, in order, in front of `terminal` (the native port's Bridge, or another chain).
    Ids come from `terminal`."""

    def __init__(self, layers: Sequence[Layer], terminal: Requester) -> None:
        self.layers: tuple[Layer, ...] = tuple(layers)
        self.terminal: Final = terminal
        entry: Next = terminal.send
        for layer in reversed(self.layers):
            # partial, not a closure: no Python frame of its own between two layers
            entry = functools.partial(layer, call_next=entry)
        self._entry = entry

    def new_request_id(self) -> str:
        """The terminal's next id."""
        return self.terminal.new_request_id()

    async def send(self, call: Call) -> Any:
        """`call` through every layer, then the terminal."""
        return await self._entry(call)

