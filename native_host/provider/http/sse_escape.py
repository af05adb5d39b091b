"""U+2028, U+2029 and U+0085 escaped in the provider's event streams (docs/internals/protocol.md "MCP
endpoint").

The SDK's Streamable HTTP transport writes each JSON-RPC message as the `data:` line of one SSE
event, with those three characters raw: `model_dump_json` leaves them as UTF-8, and JSON allows
them in strings. A page's text can carry them, and some SSE and line parsers (JavaScript's
line-terminator rules, Python's `str.splitlines`) break a line at them, so a client could read a
cut `data:` line, or a forged second one. `EscapedLineSeparators` is a pure ASGI class around the
SDK's app: in every `text/event-stream` response body it replaces their UTF-8 bytes by the JSON
escapes `\\u2028`, `\\u2029`, `\\u0085`, which mean the same string. They can only occur inside JSON
strings there (JSON allows no other raw non-ASCII outside strings; the event's other fields are the
SDK's own ASCII), and UTF-8 is self-synchronising, so a byte-level replace touches nothing else.
A sequence split across two body messages is held back until the next one.
"""

from __future__ import annotations

from typing import Final

from native_host.provider.http.security import ASGIApp, Message, Receive, Scope, Send

ESCAPES: Final = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"), (b"\xc2\x85", b"\\u0085"))
"""The UTF-8 bytes of U+2028, U+2029, U+0085, and the JSON escape each becomes."""

_PREFIXES: Final = (b"\xe2\x80", b"\xe2", b"\xc2")
"""How a body message may end part-way into one of ESCAPES (longest first)."""


def escape_separators(body: bytes) -> bytes:
    """`body` with each of ESCAPES replaced by its JSON escape."""
    for raw, escaped in ESCAPES:
        if raw in body:
            body = body.replace(raw, escaped)
    return body


def _split_tail(body: bytes) -> tuple[bytes, bytes]:
    """(what can be sent now, a trailing start of one of ESCAPES to hold back)."""
    for prefix in _PREFIXES:
        if body.endswith(prefix):
            return body[: -len(prefix)], prefix
    return body, b""


class EscapedLineSeparators:
    """ASGI wrapper: `EscapedLineSeparators(app)` passes every response through, escaping U+2028,
    U+2029 and U+0085 in the bodies of event streams (`text/event-stream`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection through `app`."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        stream = False
        held = b""

        async def send_wrapper(message: Message) -> None:
            nonlocal stream, held
            if message["type"] == "http.response.start":
                stream = _is_event_stream(message)
            elif stream and message["type"] == "http.response.body":
                body, more = held + message.get("body", b""), message.get("more_body", False)
                body, held = _split_tail(body) if more else (body, b"")
                message = {**message, "body": escape_separators(body)}
            await send(message)

        await self.app(scope, receive, send_wrapper)


def _is_event_stream(start: Message) -> bool:
    for name, value in start.get("headers", []):
        if bytes(name).lower() == b"content-type":
            return bytes(value).lower().startswith(b"text/event-stream")
    return False
