"""Every non-2xx answer of the provider endpoint is a short one-line JSON-RPC error (design.md §1).

`ShortErrorBodies` is a pure ASGI class between `LoopbackGuard` and the SDK's Streamable HTTP app.
The guard's own refusals (403/421/401) are already short JSON; behind it the SDK answers some
errors in plain text (404 "Not Found", 413 "Request body too large", 400 "Invalid Content-Type
header") and a JSON-RPC batch, `[]`, `null` or `{}` with a multi-line pydantic dump (with
errors.pydantic.dev links and the request's own content echoed). For a response with status
≥ 400 that is not an event stream, this class buffers the body and:

    short JSON-RPC error already (one line, ≤ MAX_MESSAGE_CHARS, no pydantic text) → unchanged
    a pydantic dump  → -32600 "Invalid request: the body must be one JSON-RPC 2.0 message object …"
    plain text       → -32600 with one sentence for the status (404, 413, 400 Content-Type, else
                       the SDK's own first line); a 404 for a path other than the endpoint's
                       (`<path>/mcp`, a guess) names the published path (wrong_path_message)

Only a caller that passed LoopbackGuard (no Origin, a loopback Host, the bearer token) gets here,
so naming the path tells nothing the caller's descriptor does not: a caller without the token
gets the guard's 401 and never the path.

Bodies are `{"jsonrpc":"2.0","id":null,"error":{"code":…,"message":…}}`; status and other headers
are kept, `content-type`/`content-length` rewritten. Nothing is logged here (the guard logs its
refusals; these are client mistakes, answered to the client).
"""

from __future__ import annotations

import json
from typing import Any, Final

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

from native_host.provider.http.security import INVALID_REQUEST, ASGIApp, Message, Receive, Scope, Send

MAX_MESSAGE_CHARS: Final = 300
"""A JSON-RPC error message longer than this (or spanning lines) is replaced by one sentence."""

INVALID_BODY_MESSAGE: Final = (
    "Invalid request: the body must be one JSON-RPC 2.0 message object (batches, arrays and null "
    "are not accepted)."
)

_STATUS_MESSAGES: Final = {
    404: "Not found: this endpoint serves MCP only at the exact path published in the provider's descriptor.",
    413: f"Request body too large: the limit is {DEFAULT_MAX_REQUEST_BODY_SIZE // (1024 * 1024)} MiB.",
    415: "Unsupported Content-Type: send `Content-Type: application/json`.",
}


def wrong_path_message(endpoint_path: str) -> str:
    """The 404 sentence for a request to a path other than `endpoint_path` (`/mcp/<random>`): the
    published path, and why a direct-HTTP entry keeps breaking (at most MAX_MESSAGE_CHARS)."""
    return (
        f"Not found: MCP is served only at exactly {endpoint_path[:64]}, the descriptor's endpoint path; "
        "append nothing (such as /mcp). A direct-HTTP entry breaks at every browser restart (new port, "
        "path and token): use `webctx mcp`, which does not."
    )


def short_error_body(
    status: int, content_type: str, body: bytes, *, not_found: str | None = None
) -> bytes | None:
    """The replacement body for an error response (`status` ≥ 400), or None to keep `body`; a
    plain-text 404 says `not_found` when given (wrong_path_message)."""
    if status == 404 and not_found is not None and not content_type.startswith("application/json"):
        return _jsonrpc_error(not_found)
    if content_type.startswith("application/json"):
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        error = payload.get("error") if isinstance(payload, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        if isinstance(message, str):
            if _is_short(message):
                return None
            return _jsonrpc_error(INVALID_BODY_MESSAGE)
    return _jsonrpc_error(_sentence_for(status, body.decode("utf-8", "replace")))


def _is_short(message: str) -> bool:
    return "\n" not in message and len(message) <= MAX_MESSAGE_CHARS and "pydantic" not in message


def _sentence_for(status: int, text: str) -> str:
    if status == 400 and "content-type" in text.lower():
        return _STATUS_MESSAGES[415]
    if status in _STATUS_MESSAGES:
        return _STATUS_MESSAGES[status]
    first = text.strip().splitlines()[0][:MAX_MESSAGE_CHARS] if text.strip() else f"HTTP error {status}"
    return first if first.endswith(".") else f"{first}."


def _jsonrpc_error(message: str) -> bytes:
    error = {"code": INVALID_REQUEST, "message": message}
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": error}, separators=(",", ":")).encode()


class ShortErrorBodies:
    """ASGI wrapper: `ShortErrorBodies(app, endpoint_path="/mcp/…")` passes 2xx/3xx and event
    streams through untouched and rewrites other error bodies as described in the module doc
    (`endpoint_path`: the path the descriptor publishes; None: the generic 404 sentence)."""

    def __init__(self, app: ASGIApp, *, endpoint_path: str | None = None) -> None:
        self.app = app
        self.endpoint_path = endpoint_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection through `app`, rewriting its error body if needed."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []
        path = self.endpoint_path
        not_found = wrong_path_message(path) if path is not None and scope.get("path") != path else None

        async def send_wrapper(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if message["status"] >= 400 and not _content_type(message).startswith("text/event-stream"):
                    start = message  # hold it until the whole body is known
                    return
                await send(message)
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            replacement = short_error_body(start["status"], _content_type(start), body, not_found=not_found)
            if replacement is not None:
                body = replacement
            headers = [
                (name, value)
                for name, value in start.get("headers", [])
                if name.lower() not in (b"content-type", b"content-length")
            ]
            headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, send_wrapper)


def _content_type(start: Message) -> str:
    headers: Any = start.get("headers", [])
    for name, value in headers:
        if name.lower() == b"content-type":
            return str(value.decode("latin-1")).lower()
    return ""
