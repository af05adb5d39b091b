"""The provider's MCP endpoint on 127.0.0.1: Streamable HTTP in an embedded uvicorn.

What it serves is design.md §1. Modules: `endpoint` (`McpEndpoint`, both MCP eras, the tool table), `connections` (header/body deadlines,
the connection cap), `request_slots` (what one client may hold), `security` (Origin 403 → Host 421
→ bearer 401), `error_bodies` (one-line JSON-RPC error bodies), `refusal_log`/`log_budget`
(events caused from outside, logged within a budget), `sse_escape` (no raw line separators in event
streams), `list_changed` (`notifications/*/list_changed`, coalesced).
"""
