"""The loopback guard (design.md §1 "Request checks"): one pure check function, `refusal`, in front of
both loopback endpoints of a provider:

```
MCP endpoint  ── LoopbackGuard (pure ASGI class) ──┐
hand-off WS   ── HandoffServer's process_request ──┴─► refusal(headers, allowed_hosts, token)
                 (profiles/handoff_server.py)
```

Checks, in this order, before anything reaches MCP or the hand-off:

1. any `Origin` header → 403 (before the token is looked at: a browser page never gets a hint);
2. `Host` not exactly `127.0.0.1:<port>` or `localhost:<port>` → 421 (DNS-rebinding guard);
3. `Authorization: Bearer <token>` missing or wrong (constant-time compare) → 401.

A token in the query string is never accepted; `Sec-Fetch-*` headers and the `User-Agent` are not
looked at (Electron-based MCP clients send `Sec-Fetch-Site/Mode/Dest` on every request and cannot
remove them). Each refusal is logged with its reason, never the token, through
refusal_log.REFUSALS (the first few per minute one by one, then a count). On the MCP endpoint a
refusal is a status and a one-line JSON-RPC error body without an id; the 403's `error.data` names
the refused header and its value (`{"header": "Origin", "value": "…"}`) so a client's developer
knows what to remove. `lifespan` scopes pass through; `websocket` scopes get the same checks as
`http` (uvicorn turns a refusal before accept into a 403). The hand-off answers a refusal with its
status and the message as plain text.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from native_host.provider.http.refusal_log import REFUSALS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_ECHOED_CHARS: Final = 200
"""The 403 body quotes the refused Origin value up to this many characters."""

INVALID_REQUEST: Final = -32600
"""JSON-RPC "Invalid Request", the code of every refusal body."""


Headers = Sequence[tuple[bytes, bytes]]
"""Request headers as ASGI gives them: lower-case names, raw bytes, in order, repeats kept."""


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused: the HTTP `status` (403, 421 or 401), a one-line `message` for the
    body and the log (never the token), `headers` to add to the response, and for a 403 the refused
    `origin` (its first value, cut to MAX_ECHOED_CHARS characters)."""

    status: int
    message: str
    headers: tuple[tuple[bytes, bytes], ...] = ()
    origin: str | None = None


def loopback_hosts(port: int) -> tuple[bytes, bytes]:
    """The `Host` values a loopback endpoint on `port` accepts: `127.0.0.1:<port>`, `localhost:<port>`."""
    return f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()


def refusal(headers: Headers, *, allowed_hosts: Sequence[bytes], token: bytes) -> Refusal | None:
    """The loopback checks of design.md §1 "Request checks", in order, as one pure function: the MCP
    endpoint (LoopbackGuard) and the hand-off WebSocket (profiles/handoff_server.py) both call it.
    Returns the first failing check's Refusal, or None to let the request in.

    1. any `Origin` header → 403, before the token is looked at;
    2. not exactly one `Host`, or one not in `allowed_hosts` (`loopback_hosts(port)`) → 421;
    3. not exactly one `Authorization: Bearer <token>` (scheme case-insensitive, the token
       compared in constant time) → 401 with `WWW-Authenticate: Bearer`.
    """
    origins = [value for name, value in headers if name == b"origin"]
    if origins:
        shown = origins[0].decode("latin-1")[:MAX_ECHOED_CHARS]
        return Refusal(
            403,
            f"Forbidden: requests with an Origin header are refused (Origin: {shown}). "
            "MCP clients must not send Origin to this endpoint.",
            origin=shown,
        )
    hosts = [value for name, value in headers if name == b"host"]
    if len(hosts) != 1 or hosts[0] not in allowed_hosts:
        expected = " or ".join(host.decode() for host in allowed_hosts)
        return Refusal(421, f"Misdirected request: the Host header must be {expected}.")
    authorizations = [value for name, value in headers if name == b"authorization"]
    problem = _authorization_problem(authorizations, token)
    if problem is not None:
        return Refusal(
            401,
            f"Unauthorized ({problem}): send `Authorization: Bearer <token>`; the token is published "
            "in the provider's descriptor.",
            ((b"www-authenticate", b"Bearer"),),
        )
    return None


def _authorization_problem(authorizations: list[bytes], token: bytes) -> str | None:
    """Why the `Authorization` headers fail, in a few words that never include the token; None if
    they pass."""
    if not authorizations:
        return "no Authorization header"
    if len(authorizations) > 1:
        return f"{len(authorizations)} Authorization headers"
    if authorizations[0].strip().partition(b" ")[0].lower() != b"bearer":
        return "the scheme is not Bearer"
    if not token_matches(authorizations[0], token):
        return "wrong token"
    return None


def token_matches(authorization: bytes, token: bytes) -> bool:
    """True when `authorization` is `Bearer <token>` (scheme case-insensitive, constant-time)."""
    scheme, _, presented = authorization.strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return hmac.compare_digest(presented.strip(), token)


class LoopbackGuard:
    """ASGI wrapper: `LoopbackGuard(app, port=53817, token="…")` refuses what design.md §1 refuses
    (`refusal`) and passes the rest to `app` untouched. `token` is the bearer token published in
    the descriptor."""

    def __init__(self, app: ASGIApp, *, port: int, token: str) -> None:
        self.app = app
        self.allowed_hosts = loopback_hosts(port)
        self._token = token.encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection: refuse it (403, 421, 401) or hand it to the wrapped app."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refused = refusal(scope.get("headers") or [], allowed_hosts=self.allowed_hosts, token=self._token)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message = refused.status, refused.message
        REFUSALS.refused("MCP endpoint", status, message)  # rate-limited: a flood must not rotate the log
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
            return
        error: dict[str, Any] = {"code": INVALID_REQUEST, "message": message}
        if refused.origin is not None:
            error["data"] = {"header": "Origin", "value": refused.origin}
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}, separators=(",", ":")).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *refused.headers,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
