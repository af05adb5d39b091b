"""Talking to one provider over MCP (concepts page, "Security"; design.md §1, §7).

```
open_session(descriptor)        Streamable HTTP to 127.0.0.1 with the bearer token, no Origin,
                                a time limit on connecting and on every call
  └─ ProviderSession.current()   check_answer: instance/protocol must equal the descriptor's
  └─ ProviderSession.location()  where an element is (design.md §1.2)
  └─ ProviderSession.call_tool() / list_tools()   any other tool, time-limited
  └─ ProviderSession.list_resources() / read_resource()   the page resources
```

Failures come out as the error tree's words: ProviderUnavailable (no answer in time, transport
failure), ProviderRejected (answer dropped), WebctxError with a `.code` (the provider refused).
The token is never logged. Just over 400 lines: one session object and the error translation all its
calls share (`_limited`; the transport helpers beside `open_session`).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

import anyio
import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import REQUEST_TIMEOUT
from pydantic import ValidationError

from native_host import __version__
from native_host.errors import ProviderRejected, ProviderUnavailable, WebctxError
from native_host.host.ids import IdBook
from native_host.protocol.answers import CurrentAnswer, LocationAnswer
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.native import PAGE_TEXT_DEADLINE_MS
from native_host.protocol.resources import REASON_WORDS
from native_host.protocol.tools import ACTIVITY_RESOURCE_URI

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "READ_TIMEOUT_S",
    "ConnectMode",
    "CurrentResult",
    "ProviderSession",
    "check_answer",
    "open_session",
    "reason_word",
    "send_read_resource",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")
_Paged = TypeVar("_Paged", types.ListToolsResult, types.ListResourcesResult)

MAX_LIST_PAGES: Final = 100
"""Most pages of `tools/list` / `resources/list` read (a paginator that never ends cannot hang us)."""

DEFAULT_TIMEOUT_S: Final = 5.0
"""Time limit for connecting to a provider and for each call, in seconds ("Never wait on a provider")."""

READ_TIMEOUT_S: Final = PAGE_TEXT_DEADLINE_MS / 1000 + 5
"""Time limit for reading a page resource, in seconds (`webctx read`, the demo, the bridge): the
provider's longest `page.read` deadline (a page's text, 10 s: Readability on a large page) plus
margin, after which the provider answers with its own error."""


ConnectMode = Literal["auto", "legacy"]
"""`"auto"`: the SDK probes `server/discover` and lands on 2026-07-28; `"legacy"`: the 2025-11-25
`initialize` handshake (design.md §1: both eras must work)."""

_HTTP_READ_TIMEOUT_S: Final = 300.0
"""httpx read timeout, long because a 2025-era session keeps a GET stream open; calls have their own limit."""


def check_answer(descriptor: Descriptor, structured: Any) -> CurrentAnswer:
    """Validate a `current` answer (design.md §1.1) against the descriptor it came from.

    Raises ProviderRejected: `invalid_answer` (not a `CurrentAnswer`), `instance_mismatch` or
    `protocol_mismatch` (differs from the descriptor: the answer is dropped, concepts page).
    """
    try:
        answer = CurrentAnswer.model_validate(structured)
    except ValidationError as exc:
        raise ProviderRejected(
            f"{descriptor.name} answered `current` with something that is not a context tree "
            f"({exc.error_count()} problem(s)); the answer was dropped.",
            reason="invalid_answer",
        ) from None
    if answer.instance != descriptor.instance:
        raise ProviderRejected(
            f"{descriptor.name} answered as instance {answer.instance!r}, but its descriptor says "
            f"{descriptor.instance!r}; the answer was dropped (the provider may have restarted).",
            reason="instance_mismatch",
        )
    if answer.protocol != descriptor.protocol:
        raise ProviderRejected(
            f"{descriptor.name} answered with protocol {answer.protocol}, but its descriptor says "
            f"{descriptor.protocol}; the answer was dropped.",
            reason="protocol_mismatch",
        )
    return answer


@dataclass(frozen=True)
class CurrentResult:
    """A checked `current` answer with the descriptor of the provider that gave it."""

    descriptor: Descriptor
    answer: CurrentAnswer
    raw: dict[str, Any]
    """The exact `structuredContent` the provider sent (what `webctx context --json` prints)."""


class ProviderSession:
    """An open MCP connection to one provider; made by `open_session`. Every call is time-limited."""

    def __init__(self, client: Client, descriptor: Descriptor, timeout_s: float, id_book: IdBook | None):
        self._client = client
        self.descriptor = descriptor
        self.timeout_s = timeout_s
        self.id_book = id_book

    @property
    def protocol_version(self) -> str:
        """The negotiated MCP protocol version, e.g. `"2026-07-28"` or `"2025-11-25"`."""
        return self._client.protocol_version

    @property
    def server_capabilities(self) -> types.ServerCapabilities:
        """The capabilities the provider declared (`initialize` or `server/discover`), e.g. for the
        conformance kit's look at `capabilities.extensions` (design.md §1)."""
        return self._client.server_capabilities

    @property
    def client(self) -> Client:
        """The SDK client under this session, for what the helpers here do not cover (e.g.
        `client.listen(tools_list_changed=True)`, or a call with its own time limit). Calls on it
        are not time-limited by this session; the stdio bridge uses it."""
        return self._client

    async def current(self) -> CurrentResult:
        """Call `current` (design.md §1.1) and check the answer (`check_answer`); record its ids.

        Raises ProviderUnavailable (no answer within `timeout_s`, transport failure, `isError`) or
        ProviderRejected (answer dropped).
        """
        result = await self.call_tool("current", {})
        if result.is_error:
            reason = _result_text(result) or "no reason given"
            raise ProviderUnavailable(f"{self.descriptor.name} could not answer `current`: {reason}.")
        structured = result.structured_content
        if structured is None:  # tolerate a provider that only sends the text block
            try:
                structured = json.loads(_result_text(result))
            except ValueError:
                structured = None
        raw = structured if isinstance(structured, dict) else {}
        answer = check_answer(self.descriptor, structured)
        if self.id_book is not None:
            self.id_book.record(self.descriptor, answer)
        return CurrentResult(self.descriptor, answer, raw)

    async def location(self, id_: str) -> LocationAnswer:
        """Call `location` for `id_` (design.md §1.2) and return the checked answer (rects in points).

        Raises WebctxError with `.code` `unknown_id` / `invalid_id` when the provider refuses the id,
        ProviderUnavailable on other `isError` results or transport failures, ProviderRejected
        (`invalid_answer`) when the answer is not a location.
        """
        result = await self.call_tool("location", {"id": id_})
        structured = result.structured_content
        if result.is_error:
            error = structured.get("error") if isinstance(structured, dict) else None
            code = error.get("code") if isinstance(error, dict) else None
            if code in ("unknown_id", "invalid_id"):
                raise WebctxError(
                    f"{self.descriptor.name} does not know the id {_echo_id(id_)} ({code}); treat the "
                    "element as gone and ask `current` again.",
                    code=str(code),
                )
            reason = _result_text(result) or "no reason given"
            raise ProviderUnavailable(f"{self.descriptor.name} could not answer `location`: {reason}.")
        try:
            return LocationAnswer.model_validate(structured)
        except ValidationError as exc:
            raise ProviderRejected(
                f"{self.descriptor.name} answered `location` with something that is not a location "
                f"({exc.error_count()} problem(s)); the answer was dropped.",
                reason="invalid_answer",
            ) from None

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        """Call MCP tool `name` with `arguments` (an object); return the result as is (`isError`
        results included). Raises ProviderUnavailable on timeout/transport failure and WebctxError
        (code `mcp_error`) when the provider answers with a JSON-RPC error (e.g. unknown tool)."""
        return await self._limited(f"`{name}`", self._client.call_tool(
            name, arguments or {}, read_timeout_seconds=self.timeout_s
        ))

    async def list_tools(self) -> list[types.Tool]:
        """The provider's MCP tools (all pages of `tools/list`). Same errors as `call_tool`."""
        pages = await self._every_page("tools/list", lambda cursor: self._client.list_tools(cursor=cursor))
        return [tool for page in pages for tool in page.tools]

    async def list_resources(self) -> list[types.Resource]:
        """The provider's listed MCP resources (all pages of `resources/list`; each Page's
        `webctx://<instance>/<pageId>/text` and, when switched on, `…/screenshot`). Same errors as
        `call_tool`."""
        pages = await self._every_page(
            "resources/list", lambda cursor: self._client.list_resources(cursor=cursor)
        )
        return [resource for page in pages for resource in page.resources]

    async def read_resource(self, uri: str, *, timeout_s: float | None = None) -> types.ReadResourceResult:
        """`resources/read` of `uri` as is (a page resource: one TextResourceContents or
        BlobResourceContents with `_meta`, protocol/resources.py), within `timeout_s` seconds
        (default: this session's limit; a page's text may take the provider up to 10 s).

        Raises WebctxError with the provider's own message and `.code` its reason word when the
        message starts with one (`gone: …`; protocol/resources.py REASON_WORDS: `gone`, `unknown`,
        `not_shared`, `switched_off`, `not_capturable`, `read_failed`), else WebctxError
        `mcp_error` ("<browser> refused …: <message>", e.g. a provider without page resources);
        ProviderUnavailable on timeout/transport failure."""
        limit = self.timeout_s if timeout_s is None else timeout_s
        return await self._limited(
            f"resources/read of {_echo_id(uri, 200)}",
            send_read_resource(self._client, uri, timeout_s=limit),
            timeout_s=limit,
            own_words=True,
        )

    async def activity(self) -> list[dict[str, Any]]:
        """The provider's last reads, newest first (`webctx://activity`, provider/activity.py:
        `[{at, client: {name, version?}, tool, ok, elements}]`). Same errors as `call_tool`, and
        WebctxError (code `mcp_error`) when the answer is not that JSON."""
        result = await self._limited(ACTIVITY_RESOURCE_URI, self._client.read_resource(ACTIVITY_RESOURCE_URI))
        texts = [item.text for item in result.contents if isinstance(item, types.TextResourceContents)]
        try:
            entries = json.loads(texts[0])["entries"] if texts else None
        except (ValueError, KeyError, TypeError):
            entries = None
        if not isinstance(entries, list):
            raise WebctxError(
                f"{self.descriptor.name} sent its activity in a shape this webctx does not know; "
                "update webctx.",
                code="mcp_error",
            )
        return [entry for entry in entries if isinstance(entry, dict)]

    async def _every_page(
        self, what: str, fetch: Callable[[str | None], Awaitable[_Paged]]
    ) -> list[_Paged]:
        """Every page of a paginated list (`fetch(cursor)`, each within this session's limit), at
        most MAX_LIST_PAGES: a paginator that never ends cannot hang us."""
        pages: list[_Paged] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            page = await self._limited(what, fetch(cursor))
            pages.append(page)
            cursor = page.next_cursor
            if not cursor:
                break
        return pages

    async def _limited(
        self, what: str, call: Awaitable[_T], *, timeout_s: float | None = None, own_words: bool = False
    ) -> _T:
        limit = self.timeout_s if timeout_s is None else timeout_s
        try:
            with anyio.fail_after(limit + 0.5):
                return await call
        except TimeoutError:
            raise _timeout_error(self.descriptor, limit, what) from None
        except MCPError as exc:
            word = reason_word(exc.error.message) if own_words else "mcp_error"
            if word != "mcp_error":  # the provider's sentence is whole: reason word first, fix last
                raise WebctxError(exc.error.message, code=word) from None
            if exc.error.code == REQUEST_TIMEOUT or "timed out" in exc.error.message:
                raise _timeout_error(self.descriptor, limit, what) from None
            raise WebctxError(
                f"{self.descriptor.name} refused {what}: {exc.error.message}", code="mcp_error"
            ) from None
        except (httpx2.HTTPError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            raise _transport_error(self.descriptor, exc) from None


def reason_word(message: str) -> str:
    """The reason word a page-resource error message starts with (`gone: …` → `gone`;
    protocol/resources.py REASON_WORDS), or `mcp_error` when it starts with none."""
    word = message.split(":", 1)[0].strip()
    return word if ":" in message and word in REASON_WORDS.values() else "mcp_error"


async def send_read_resource(
    client: Client, uri: str, *, timeout_s: float, meta: types.RequestParamsMeta | None = None
) -> types.ReadResourceResult:
    """`resources/read` of `uri` on `client` with its own time limit of `timeout_s` seconds (the
    SDK's `Client.read_resource` has none but the session's, and a page's text may take longer than
    a connection's limit); `meta` goes along as `_meta`. Raises MCPError as the SDK does (the
    provider's error, a timeout, a closed connection). The bridge uses it too (stdio/resources.py)."""
    request = types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=uri, _meta=meta))
    return await client.session.send_request(
        request, types.ReadResourceResult, request_read_timeout_seconds=timeout_s
    )


def _result_text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


def _timeout_error(descriptor: Descriptor, timeout_s: float, what: str) -> ProviderUnavailable:
    return ProviderUnavailable(
        f"{descriptor.name} (pid {descriptor.pid}) did not answer {what} within {timeout_s:g} s; "
        "carrying on without it. Try again, or raise the limit with --timeout."
    )


def _transport_error(descriptor: Descriptor, exc: BaseException) -> ProviderUnavailable:
    leaf = _first_leaf(exc)
    detail = str(leaf) or type(leaf).__name__
    if isinstance(leaf, MCPError):
        detail = leaf.error.message
    return ProviderUnavailable(
        f"Could not talk to {descriptor.name} (pid {descriptor.pid}) at {descriptor.endpoint}: "
        f"{detail.rstrip('. ')}."
    )


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


@asynccontextmanager
async def open_session(
    descriptor: Descriptor,
    *,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    id_book: IdBook | None = None,
    client_name: str = "webctx",
) -> AsyncIterator[ProviderSession]:
    """Connect to `descriptor.endpoint` with its bearer token and no `Origin` header (design.md §1).

    `mode="auto"` lands on MCP 2026-07-28, `"legacy"` does the 2025-11-25 handshake. Connecting is
    limited to `timeout_s` seconds, and so is every call on the yielded session. Raises
    ProviderUnavailable when the provider cannot be reached or does not answer in time. Does not
    re-check the descriptor: pass one from `discover()`/`choose_provider()`. `client_name` is the
    clientInfo name declared to the provider, which records it with each read: "webctx"
    for the commands, "webctx mcp" for the bridge.
    """
    headers = {"Authorization": f"Bearer {descriptor.token}"}
    timeout = httpx2.Timeout(timeout_s, read=_HTTP_READ_TIMEOUT_S)
    connected = False
    body_error: BaseException | None = None
    body_done = False
    try:
        with anyio.fail_after(timeout_s) as deadline:
            async with (
                httpx2.AsyncClient(headers=headers, timeout=timeout, follow_redirects=False) as http,
                Client(
                    streamable_http_client(descriptor.endpoint, http_client=http),
                    mode=mode,
                    read_timeout_seconds=timeout_s,
                    cache=None,
                    client_info=types.Implementation(name=client_name, version=__version__),
                ) as client,
            ):
                connected = True
                deadline.deadline = math.inf  # connected: from here each call has its own limit
                log.debug("connected to pid %s over MCP %s", descriptor.pid, client.protocol_version)
                try:
                    yield ProviderSession(client, descriptor, timeout_s, id_book)
                except BaseException as exc:
                    body_error = exc
                    raise
                body_done = True
                deadline.deadline = anyio.current_time() + timeout_s  # closing is limited too
    except Exception as exc:
        if body_error is not None and _contains(exc, body_error):
            raise body_error from None  # the caller's own error, out of the SDK's task groups
        if body_done:  # the work is done; a failure while hanging up does not undo it
            log.debug("error while closing the session with pid %s", descriptor.pid, exc_info=True)
            return
        if isinstance(exc, TimeoutError) and not connected:
            raise _timeout_error(descriptor, timeout_s, "the connection") from None
        if isinstance(exc, WebctxError) or (connected and not _is_transport_failure(exc)):
            raise
        raise _transport_error(descriptor, exc) from None


def _contains(exc: BaseException, wanted: BaseException) -> bool:
    if exc is wanted:
        return True
    if isinstance(exc, BaseExceptionGroup):
        return any(_contains(inner, wanted) for inner in exc.exceptions)
    return False


def _is_transport_failure(exc: BaseException) -> bool:
    leaf = _first_leaf(exc)
    return isinstance(leaf, httpx2.HTTPError | OSError | MCPError | anyio.BrokenResourceError)


def _echo_id(id_: str, limit: int = 80) -> str:
    """`id_` quoted for a message, cut to `limit` characters with "…" (ids can be any length)."""
    return repr(id_) if len(id_) <= limit else repr(id_[:limit]) + "…"
