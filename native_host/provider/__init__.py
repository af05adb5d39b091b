"""The provider: the process the browser starts (`python -m native_host`).

It answers the worker's `hello`, keeps the tree the worker pushes, serves MCP on 127.0.0.1 behind
the loopback guard (design.md §1), exposes the pages' WebMCP tools (design.md §5) and publishes the
descriptor (design.md §3). It imports `protocol/`, never `host/` or `stdio/`.

Modules: start and lifecycle `early_hello`, `hello`, `app`, `serving`, `daemon_threads`; the native
port `framing`, `correlator`, `bridge`, `tree_cache`; MCP `endpoint`, `connections`,
`request_slots` (what one client may hold), `builtin_tools`, `read_page` (a page's text as a tool),
`security`, `log_budget`, `refusal_log`, `error_bodies`, `sse_escape`, `page_tools`, `page_schemas`,
`page_resources` (page text and screenshots), `list_changed`, `activity` (who read what);
the descriptor `descriptor_files`, `publisher`; bench only `bench_ping`. Subpackages: `profiles`
(several profiles, one provider), `platform` (OS windows).
"""
