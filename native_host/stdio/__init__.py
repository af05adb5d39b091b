"""`webctx mcp`: a stdio MCP server for clients that cannot reach the provider's HTTP endpoint.
It finds and follows the provider through `host/`, never `provider/`.

Modules: `server` (StdioBridge, the MCP server), `provider_link` (which provider, kept connected),
`resources` (the provider's page resources, listed and read through), `notify` (list_changed to
the bridge's clients), `check` (`webctx mcp --check` and a call's "cannot reach a browser" error:
can the bridge find a browser?), `first_answer` (answers `initialize` before the SDK is imported;
the fixed `instructions`), `handover` (the SDK takes over the wire from the first answer),
`bad_lines` (answers stdin lines that are not JSON-RPC), `clients` (DATA: client configurations).
"""
