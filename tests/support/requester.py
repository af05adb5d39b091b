"""A fake of what the MCP endpoint and page tools talk to: `bridge.Requester` (the native port
to the extension's service worker), for tests and benches."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from typing import Any, Final, NamedTuple


class SentRequest(NamedTuple):
    """One request a FakeRequester received, its fields in `Requester.request`'s order."""

    type: str
    """The request type, e.g. `current`, `location`, `tools.call` (design.md §4)."""
    body: dict[str, Any]
    """A copy of the body; `{}` when none was given."""
    request_id: str | None
    """The id the caller chose with `new_request_id()`, if any."""
    deadline_ms: int
    """How long the caller would wait, in ms."""


class _Hang:
    def __repr__(self) -> str:
        return "HANG"


HANG: Final = _Hang()
"""An answer that never comes: the request waits until it is cancelled."""

UNEXPECTED: Final = object()
"""The default `default`: a request type without an answer fails the test (AssertionError)."""


class FakeRequester:
    """Plays the extension behind `native_host.provider.port.bridge.Requester`.

    Every request is recorded, in order, in `requests` (SentRequest tuples). Its answer comes from
    `answers[type]`, else from `default`:

    - a value is returned as it is (the same object every time, as a pushed tree is);
    - an exception instance is raised;
    - HANG waits until the request is cancelled;
    - a callable is called with the SentRequest; what it returns (awaited if awaitable) is then
      taken as above.

    A type with neither raises AssertionError. `new_request_id()` gives "h-1", "h-2", …
    Subclasses whose answers need state override `answer()`.

        FakeRequester({"location": {"location": {...}}}, default={"root": {...}})
        FakeRequester(default=DeadlineExceeded("no answer"))
    """

    def __init__(self, answers: Mapping[str, Any] | None = None, *, default: Any = UNEXPECTED) -> None:
        self.answers: dict[str, Any] = dict(answers or {})
        self.default = default
        self.requests: list[SentRequest] = []
        self._ids = 0

    def new_request_id(self) -> str:
        """ "h-1", "h-2", …: one more each call."""
        self._ids += 1
        return f"h-{self._ids}"

    async def request(
        self,
        type_: str,
        body: Mapping[str, Any] | None = None,
        *,
        deadline_ms: int,
        request_id: str | None = None,
    ) -> Any:
        """Record the request, then return (or raise) its answer (see the class docstring)."""
        sent = SentRequest(type_, dict(body or {}), request_id, deadline_ms)
        self.requests.append(sent)
        return await self.answer(sent)

    async def answer(self, sent: SentRequest) -> Any:
        """The answer to `sent` from `answers`/`default`; override for answers that need state."""
        answer = self.answers.get(sent.type, self.default)
        if answer is UNEXPECTED:
            raise AssertionError(f"FakeRequester: no answer for a {sent.type!r} request")
        if callable(answer):
            answer = answer(sent)
            if inspect.isawaitable(answer):
                answer = await answer
        if answer is HANG:
            await asyncio.Event().wait()
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def request_types(self) -> list[str]:
        """The types of the requests received so far, in order."""
        return [sent.type for sent in self.requests]
