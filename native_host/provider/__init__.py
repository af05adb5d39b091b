"""The provider: the process the browser starts (`python -m native_host`).

It answers the worker's `hello`, keeps the tree the worker pushes, serves MCP on 127.0.0.1 behind
the loopback guard (design.md §1), exposes the pages' WebMCP tools (design.md §5) and publishes the
descriptor (design.md §3). It imports `protocol/`, never `host/` or `stdio/`.

Two sides, each a subpackage:
- `port/`: the native messaging port to the extension's service worker — `framing`, `correlator`,
  `bridge` (requests to the worker), `hello`, `early_hello`, `tree_cache`; bench only `bench_ping`.
  It never imports `http/` (scripts/layering.py).
- `http/`: the MCP endpoint on 127.0.0.1 — `endpoint`, `connections`, `request_slots` (what one
  client may hold), `security`, `error_bodies`, `refusal_log`, `log_budget`, `sse_escape`,
  `list_changed`.

Between them, here: start and lifecycle `app`, `serving`, `daemon_threads`; what the endpoint
offers `builtin_tools`, `read_page` (a page's text as a tool), `page_tools`, `page_schemas`,
`page_resources` (page text and screenshots), `activity` (who read what); the descriptor
`descriptor_files`, `publisher`. Subpackages: `profiles` (several profiles, one provider),
`platform` (OS windows).
"""
