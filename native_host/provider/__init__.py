"""The provider: the process the browser starts (`python -m native_host`, SPEC §4).

It answers the worker's `hello`, keeps the tree the worker pushes, serves MCP on 127.0.0.1 behind
the loopback guard (SPEC §1), exposes the pages' WebMCP tools (SPEC §5) and publishes the
descriptor (SPEC §3). It imports `protocol/`, never `host/` or `stdio/`.
"""
