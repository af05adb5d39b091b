"""The loopback guard: a pure ASGI class in front of the MCP app (SPEC §1 "Request checks").

Checks, in this order, before anything reaches MCP:

1. any `Origin` header → 403 (before the token is looked at: a browser page never gets a hint);
2. `Host` not exactly `127.0.0.1:<port>` or `localhost:<port>` → 421 (DNS-rebinding guard);
3. `Authorization: Bearer <token>` missing or wrong (constant-time compare) → 401.

A token in the query string is never accepted; `Sec-Fetch-*` headers and the `User-Agent` are not
looked at (Electron-based MCP clients send `Sec-Fetch-Site/Mode/Dest` on every request and cannot
remove them). Refusals are a status and a one-line JSON-RPC error body without an id; the 403's
`error.data` names the refused header and its value (`{"header": "Origin", "value": "…"}`) so a
client's developer knows what to remove. Each refusal is logged with its reason, never the token.
`lifespan` scopes pass through; `websocket` scopes get the same checks as `http` (uvicorn turns a
refusal before accept into a 403).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_ECHOED_CHARS: Final = 200
"""The 403 body quotes the refused Origin value up to this many characters."""

INVALID_REQUEST: Final = -32600
"""JSON-RPC "Invalid Request", the code of every refusal body."""


class LoopbackGuard:
    """ASGI wrapper: `LoopbackGuard(app, port=53817, token="…")` refuses what SPEC §1 refuses and
    passes the rest to `app` untouched. `token` is the bearer token published in the descriptor."""

    def __init__(self, app: ASGIApp, *, port: int, token: str) -> None:
        self.app = app
        self.allowed_hosts = (f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode())
        self._token = token.encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection: refuse it (403, 421, 401) or hand it to the wrapped app."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self.check(scope.get("headers") or [])
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message, extra_headers = refusal
        log.info("refused %s %s with %d: %s", scope.get("method", "WS"), scope["type"], status, message)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
            return
        error: dict[str, Any] = {"code": INVALID_REQUEST, "message": message}
        if status == 403:
            error["data"] = {"header": "Origin", "value": _first_origin(scope.get("headers") or [])}
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}, separators=(",", ":")).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *extra_headers,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def check(self, headers: list[tuple[bytes, bytes]]) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        """Return `(status, message, extra headers)` for a request to refuse, None to let it in.
        `headers` are ASGI headers (lower-case names, raw bytes)."""
        origins = [value for name, value in headers if name == b"origin"]
        if origins:
            shown = origins[0].decode("latin-1")[:MAX_ECHOED_CHARS]
            return (
                403,
                f"Forbidden: requests with an Origin header are refused (Origin: {shown}). "
                "MCP clients must not send Origin to this endpoint.",
                [],
            )
        hosts = [value for name, value in headers if name == b"host"]
        if len(hosts) != 1 or hosts[0] not in self.allowed_hosts:
            expected = " or ".join(host.decode() for host in self.allowed_hosts)
            return 421, f"Misdirected request: the Host header must be {expected}.", []
        authorizations = [value for name, value in headers if name == b"authorization"]
        problem = self._authorization_problem(authorizations)
        if problem is not None:
            return (
                401,
                f"Unauthorized ({problem}): send `Authorization: Bearer <token>`; the token is published "
                "in the provider's descriptor.",
                [(b"www-authenticate", b"Bearer")],
            )
        return None

    def _authorization_problem(self, authorizations: list[bytes]) -> str | None:
        """Why the `Authorization` headers fail, in a few words that never include the token; None if
        they pass."""
        if not authorizations:
            return "no Authorization header"
        if len(authorizations) > 1:
            return f"{len(authorizations)} Authorization headers"
        if authorizations[0].strip().partition(b" ")[0].lower() != b"bearer":
            return "the scheme is not Bearer"
        if not self._token_matches(authorizations[0]):
            return "wrong token"
        return None

    def _token_matches(self, authorization: bytes) -> bool:
        """True when `authorization` is `Bearer <our token>` (scheme case-insensitive, constant-time)."""
        scheme, _, presented = authorization.strip().partition(b" ")
        if scheme.lower() != b"bearer":
            return False
        return hmac.compare_digest(presented.strip(), self._token)


def _first_origin(headers: list[tuple[bytes, bytes]]) -> str:
    """The first `Origin` header's value, cut to MAX_ECHOED_CHARS characters."""
    for name, value in headers:
        if name == b"origin":
            return value.decode("latin-1")[:MAX_ECHOED_CHARS]
    return ""
