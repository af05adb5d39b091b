"""The endpoint's HTTP security, probed from outside: five `initialize` POSTs a provider must refuse.

```
origin       the right token, but an Origin header (a web page's request)     → 403
no_token     no Authorization header                                          → 401
wrong_token  a Bearer token that is not the descriptor's                      → 401
query_token  the token in the query string, not the header                    → 401
bad_host     the right token, but a Host that is not 127.0.0.1 (DNS rebinding) → any 4xx (421)
```

Only the statuses are recorded (`Evidence.probes`); checks.py judges them (`security.*` rules).
The caller makes sure the endpoint is on 127.0.0.1 before any probe is sent.
"""

from __future__ import annotations

import secrets
from typing import Final

import httpx2

from native_host.conformance.checks import endpoint_port
from native_host.conformance.evidence import ERA_2025
from native_host.protocol.descriptor import Descriptor

_INITIALIZE: Final = {  # a well-formed request, so only the security checks can refuse it
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": ERA_2025,
        "capabilities": {},
        "clientInfo": {"name": "webctx-conformance", "version": "0"},
    },
}


async def probe_security(descriptor: Descriptor, timeout_s: float) -> dict[str, int | str]:
    """POST an `initialize` to `descriptor.endpoint` in the five ways above, each with a timeout of
    `timeout_s` seconds; return `{probe name: HTTP status}`, or a sentence for a request that
    failed (connection refused, timeout). Never raises for the provider's behaviour (Concepts:
    Security; design.md §1 "Request checks")."""
    port = endpoint_port(descriptor.endpoint)
    good = f"Bearer {descriptor.token}"
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    sep = "&" if "?" in descriptor.endpoint else "?"
    variants: dict[str, tuple[str, dict[str, str]]] = {
        "origin": (descriptor.endpoint, {"Authorization": good, "Origin": "http://127.0.0.1:9"}),
        "no_token": (descriptor.endpoint, {}),
        "wrong_token": (descriptor.endpoint, {"Authorization": f"Bearer x{secrets.token_urlsafe(16)}"}),
        "query_token": (
            f"{descriptor.endpoint}{sep}token={descriptor.token}&access_token={descriptor.token}",
            {},
        ),
        "bad_host": (descriptor.endpoint, {"Authorization": good, "Host": f"rebind.example:{port}"}),
    }
    statuses: dict[str, int | str] = {}
    async with httpx2.AsyncClient(timeout=timeout_s, follow_redirects=False) as http:
        for name, (url, headers) in variants.items():
            try:
                response = await http.post(url, json=_INITIALIZE, headers={**base, **headers})
                statuses[name] = response.status_code
            except httpx2.HTTPError as exc:
                statuses[name] = f"request failed ({type(exc).__name__})"
    return statuses
