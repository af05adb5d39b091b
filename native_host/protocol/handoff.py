"""Hand-off messages between the native hosts of one browser, and their limits (design.md §3 "Several
profiles, one provider"; our addition, docs/internals/native-host.md).

```
follower (standby host)                                              provider (holds the lock)
  ── connect ws://127.0.0.1:<port>/handoff, Authorization: Bearer <the descriptor's token> ──►
  ─► follower.hello {instance}                                FollowerHello (first, HELLO_TIMEOUT_S)
  ─► tools.changed {tools}                                    FollowerToolsChanged
  ─► tree {complete, root?, windowFocused?}                   FollowerTree
  ◄─ {type, …, id, deadlineMs}: current, location {elementId},  HandoffRequest (one envelope
     tools.call {pageId, name, input}, tools.cancel {callId},     around a protocol/native.py
     page.read {pageId, kind, maxBytes?}                          request)
  ─► result {id, result} | error {id, error: {code, message}} HandoffResult | HandoffError
```

Every message is one WebSocket message of compact UTF-8 JSON (`encode`), at most
MAX_TREE_MESSAGE_BYTES, or MAX_MESSAGE_BYTES for a reply to `tools.call` or `page.read`. Each side
parses what it receives with one TypeAdapter over the union it may receive
(`parse_follower_message`, `parse_provider_request`); a message that does not parse is dropped.
Models keep unknown fields, or for a forwarded request ignore them (a newer peer may add some;
design.md §2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import Field, TypeAdapter

from native_host.protocol.base import IncomingFrame, WireModel
from native_host.protocol.native import (
    PAGE_TOOL_DEADLINE_MS,
    CurrentRequest,
    ErrorBody,
    LocationRequest,
    PageReadRequest,
    ToolCallRequest,
    ToolCancelRequest,
)

HANDOFF_PATH: Final = "/handoff"
"""The path of the provider's hand-off URL (`ws://127.0.0.1:<port>/handoff`, the descriptor's
`handoff`)."""

MAX_MESSAGE_BYTES: Final = 80 << 20
"""Largest WebSocket message either side accepts, in bytes: a page-tool result string may be
48 MiB (docs/internals/protocol.md "Page tools"; browser → host frames are up to 64 MiB), sent as UTF-8
JSON. A reply that would be larger is sent as an `error` with code `result_too_large` instead,
never as a message that would close the link. A `page.read` reply (a screenshot of at
most 1600 px a side is ~3 MB of base64, a text at most 4 MiB) fits with room to spare."""

MAX_TREE_MESSAGE_BYTES: Final = 2 << 20
"""Largest message a follower may send unasked (`tree`, `tools.changed`) or as the reply to
`current`/`location`, in bytes; only the reply to a `tools.call` or `page.read` may be larger (up
to MAX_MESSAGE_BYTES). The extension's own tree at its caps (docs/internals/protocol.md: 100 tabs a window,
titles 1,024 and URLs 4,096 characters, 128 tool names a page) is about 1 MiB a window; a real one
is tens of KiB (a 2 MiB `current` answer already takes ~1 s to encode and send on a busy
machine). A larger message closes the link (1009) before it is read
(provider/profiles/handoff_limits.py)."""

BIG_REPLY_REQUESTS: Final = frozenset({"tools.call", "page.read"})
"""The requests whose reply may be over MAX_TREE_MESSAGE_BYTES (a 48 MiB page-tool result, a
~3 MB screenshot); every other message is held to MAX_TREE_MESSAGE_BYTES."""

HELLO_TIMEOUT_S: Final = 2.0
"""A follower must send `follower.hello` this soon after connecting, in seconds."""

MAX_ASKED_DEADLINE_MS: Final = PAGE_TOOL_DEADLINE_MS * 10
"""The largest `deadlineMs` a follower takes from the provider, in ms; a request without one in
(0, MAX_ASKED_DEADLINE_MS] waits the follower's own default (`wait_ms`)."""


class HandoffMessage(IncomingFrame):
    """Base of every hand-off message: camelCase on the wire, unknown fields kept."""

    def to_wire(self) -> dict[str, Any]:
        """The message as a JSON-ready dict, fields in declaration order; an optional field that is
        None is left out, a required one (`result`) never is.

        Shallow, unlike `model_dump`: the values are the objects held, so a pushed tree or a
        48 MiB result is not copied on its way out."""
        out: dict[str, Any] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if value is None and not field.is_required():
                continue
            out[field.alias or name] = value.to_wire() if isinstance(value, WireModel) else value
        if self.model_extra:
            out.update(self.model_extra)
        return out


# -- follower → provider ---------------------------------------------------------------------------


class FollowerHello(HandoffMessage):
    """The follower's first message: its host's `instance` (the provider numbers follower hosts by
    instance, so a follower that reconnects keeps its `f<k>-` prefix and tool names)."""

    type: Literal["follower.hello"] = "follower.hello"
    instance: str


class FollowerToolsChanged(HandoffMessage):
    """The follower's page tools (its extension's `tools.changed` list, wire shape, its own names),
    at connect and on every change. Entries stay dicts: the provider checks each as a
    `native.PageTool` and drops only the ones of the wrong shape (follower_tools.py)."""

    type: Literal["tools.changed"] = "tools.changed"
    tools: list[dict[str, Any]]


class FollowerTree(HandoffMessage):
    """The follower's pushed tree (its tree_cache.py reply), at connect and on every change.
    `complete` false (no `root`): the provider asks the follower with `current` instead. `root`
    stays a dict (the provider checks it as an `answers.Element`, and forgets the old tree when it
    does not pass) so the provider merges the very objects it received."""

    type: Literal["tree"] = "tree"
    complete: bool
    root: dict[str, Any] | None = None
    window_focused: bool | None = None
    """Whether the follower's profile has the browser's focused window
    (`chrome.windows.getLastFocused().focused`): its focus path survives the merge."""


class HandoffResult(HandoffMessage):
    """The follower's answer to a request: `id` echoes the request's, `result` is the follower's
    extension's `result` value."""

    type: Literal["result"] = "result"
    id: str
    result: Any


class HandoffError(HandoffMessage):
    """The follower's failure of a request: `id` echoes the request's; `error.code` is its
    extension's code (`page_gone`, `unknown_id`, …) or `result_too_large` (over MAX_MESSAGE_BYTES)."""

    type: Literal["error"] = "error"
    id: str
    error: ErrorBody


FollowerMessage = Annotated[
    FollowerHello | FollowerToolsChanged | FollowerTree | HandoffResult | HandoffError,
    Field(discriminator="type"),
]
"""Every message a follower sends to the provider."""

FOLLOWER_MESSAGE_ADAPTER: Final[
    TypeAdapter[FollowerHello | FollowerToolsChanged | FollowerTree | HandoffResult | HandoffError]
] = TypeAdapter(FollowerMessage)
"""Parses one decoded follower → provider message; raises pydantic.ValidationError on a wrong shape."""


# -- provider → follower ---------------------------------------------------------------------------


ForwardedRequest = CurrentRequest | LocationRequest | PageReadRequest | ToolCallRequest | ToolCancelRequest
"""The host requests a provider forwards to a follower (protocol/native.py; no bench `ping`)."""

FORWARDED_REQUEST_ADAPTER: Final[TypeAdapter[ForwardedRequest]] = TypeAdapter(
    Annotated[ForwardedRequest, Field(discriminator="type")]
)
"""Parses a forwarded request's own fields; raises pydantic.ValidationError on a wrong shape or
an unknown `type`."""


@dataclass(frozen=True, slots=True)
class HandoffRequest:
    """provider → follower, the one envelope of every forwarded request: `request` (a
    protocol/native.py model, the follower's `f<k>-` prefix already taken off its ids), the
    provider's `id` for the reply (and for a later `tools.cancel`'s `callId`), and the provider's
    `deadline_ms` for it, in ms (see `wait_ms`). On the wire: the request's fields, then `id` and
    `deadlineMs`, flat."""

    id: str
    request: ForwardedRequest
    deadline_ms: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """`{**request, id, deadlineMs?}` with wire (camelCase) names."""
        wire = self.request.to_wire()
        wire["id"] = self.id
        if self.deadline_ms is not None:
            wire["deadlineMs"] = self.deadline_ms
        return wire


def wait_ms(asked_ms: int | None, default_ms: int) -> int:
    """How long a follower waits for its extension, in ms: the provider's `deadlineMs` when it is
    in (0, MAX_ASKED_DEADLINE_MS], else `default_ms`."""
    if asked_ms is not None and 0 < asked_ms <= MAX_ASKED_DEADLINE_MS:
        return asked_ms
    return default_ms


def encode(message: HandoffMessage | HandoffRequest) -> bytes:
    """A hand-off message as compact UTF-8 JSON (sent as a binary message: no re-encoding, and
    non-ASCII text is not inflated by `\\u` escapes)."""
    return json.dumps(message.to_wire(), ensure_ascii=False, separators=(",", ":")).encode()


def _loads(raw: str | bytes) -> Any:
    """`json.loads(raw)`; raises ValueError also for JSON nested deeper than Python's parser goes
    (its RecursionError would otherwise end the connection's handler with a traceback)."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def parse_follower_message(
    raw: str | bytes,
) -> FollowerHello | FollowerToolsChanged | FollowerTree | HandoffResult | HandoffError:
    """One WebSocket message from a follower, parsed. Raises ValueError (not JSON, not UTF-8, or
    a pydantic.ValidationError: a wrong shape or an unknown `type`)."""
    # json.loads, then validation: about twice as fast as `validate_json` on a large tree (its
    # `root` holds `Any`; measured on a 2.5 MB tree).
    return FOLLOWER_MESSAGE_ADAPTER.validate_python(_loads(raw))


def parse_provider_request(raw: str | bytes) -> HandoffRequest:
    """One WebSocket message from the provider, parsed. Raises ValueError (not JSON, not UTF-8,
    not an object, an `id` that is not a string, a `deadlineMs` that is not an integer, or a
    pydantic.ValidationError: a wrong shape or an unknown `type`)."""
    data = _loads(raw)
    if not isinstance(data, dict):
        raise ValueError("a hand-off request is a JSON object")
    request_id = data.pop("id", None)
    deadline_ms = data.pop("deadlineMs", None)
    if not isinstance(request_id, str):
        raise ValueError("a hand-off request has a string `id`")
    if deadline_ms is not None and (isinstance(deadline_ms, bool) or not isinstance(deadline_ms, int)):
        raise ValueError("a hand-off request's `deadlineMs` is an integer")
    return HandoffRequest(request_id, FORWARDED_REQUEST_ADAPTER.validate_python(data), deadline_ms)
