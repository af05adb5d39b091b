"""Who an MCP request comes from: the client's self-declared `clientInfo`, in both MCP eras, and
the client a bridge forwards for (provider/activity.py records it).

A handshake-era (≤ 2025-11-25) client declares `clientInfo` once, in `initialize`; a 2026-07-28
client sends it in every request's `_meta` (`io.modelcontextprotocol/clientInfo`, optional). The
SDK exposes both as `ctx.session.client_params.client_info` (mcp/server/connection.py
`from_envelope`); the raw `_meta` is read too, for a modern request that
carried clientInfo but no well-formed capabilities (then the SDK makes no `client_params`).

The bridge (`webctx mcp`, stdio/server.py) holds one session to the provider for all its calls,
declared as "webctx mcp"; the SDK stamps that over any per-call clientInfo. So it names the client
it serves in ON_BEHALF_OF_META_KEY in each forwarded call's `_meta`, and the provider records
"<that client> via webctx mcp". All of it is the clients' claim, unverified: any local program
holding the token can call itself anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from native_host.protocol.display_text import display_line
from native_host.protocol.json_text import SURROGATE

UNKNOWN_CLIENT: Final = "unknown client"
"""The name recorded when the client declared none."""

CLIENT_INFO_META_KEY: Final = "io.modelcontextprotocol/clientInfo"
"""Where a 2026-07-28 request carries its clientInfo (spec 2026-07-28 basic/index.mdx#meta)."""

ON_BEHALF_OF_META_KEY: Final = "dev.context-providers/onBehalfOf"
"""A forwarded call's `_meta` entry: `{name, version?}` of the client a bridge calls for."""

BRIDGE_CLIENT_NAME: Final = "webctx mcp"
"""The clientInfo name `webctx mcp` declares to the provider."""

MAX_NAME_CHARS: Final = 64
"""A client's name and version are cut to this many characters (with "…")."""


def cut(text: str, limit: int) -> str:
    """`text` with lone surrogates replaced, cut to `limit` characters (the last one "…")."""
    text = SURROGATE.sub("\ufffd", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class ClientName:
    """A client's self-declared `clientInfo.name` and `version` (None when not given); `via` names
    the bridge it came through (the bridge's own declared name), None when it called directly."""

    name: str = UNKNOWN_CLIENT
    version: str | None = None
    via: str | None = None

    def to_wire(self) -> dict[str, str]:
        """`{name, version?, via?}`."""
        wire = {"name": self.name}
        if self.version:
            wire["version"] = self.version
        if self.via:
            wire["via"] = self.via
        return wire


def name_of(info: Any) -> ClientName | None:
    """ClientName from an SDK `Implementation` or a raw `{name, version}` mapping, each shown as one
    clean line (`display_text.display_line`); None if neither has a `name` that is a string and not
    blank once cleaned."""
    if isinstance(info, Mapping):
        name, version = info.get("name"), info.get("version")
    else:
        name, version = getattr(info, "name", None), getattr(info, "version", None)
    if not isinstance(name, str) or not name.strip():
        return None
    # Shown in the popup's "Who read it" and by `webctx activity`: no ESC, line breaks, bidi
    # overrides or invisible characters in it (protocol/display_text.py).
    name = display_line(name).strip()
    version = display_line(version).strip() if isinstance(version, str) else None
    if not name:
        return None
    return ClientName(cut(name, MAX_NAME_CHARS), cut(version, MAX_NAME_CHARS) if version else None)


def _meta_of(ctx: Any) -> Mapping[str, Any]:
    meta = getattr(ctx, "meta", None)
    if meta is not None and not isinstance(meta, Mapping):
        meta = getattr(meta, "model_extra", None)
    return meta if isinstance(meta, Mapping) else {}


def declared_client(ctx: Any) -> ClientName | None:
    """The clientInfo the request's sender declared (SDK `ServerRequestContext` `ctx`, either era),
    or None. Never raises."""
    try:
        params = ctx.session.client_params
    except Exception:  # no session (a test's bare context) or an SDK change: not worth a failure
        params = None
    info = getattr(params, "client_info", None)
    found = name_of(info) if info is not None else None
    if found is not None:
        return found
    raw = _meta_of(ctx).get(CLIENT_INFO_META_KEY)
    return name_of(raw) if raw is not None else None


def client_of(ctx: Any) -> ClientName:
    """Who one request is from: the client a bridge named in ON_BEHALF_OF_META_KEY (with `via` =
    the bridge's declared name), else the declared client, else ClientName() ("unknown client")."""
    declared = declared_client(ctx)
    behalf = _meta_of(ctx).get(ON_BEHALF_OF_META_KEY)
    served = name_of(behalf) if behalf is not None else None
    if served is not None:
        return ClientName(served.name, served.version, via=declared.name if declared else UNKNOWN_CLIENT)
    return declared or ClientName()
