"""What both sides of the provider protocol share: the version, the descriptor model and file rules,
the `current`/`location` answer models, native-port and hand-off message models, the MCP tool
definitions, and who the browser is. Nothing here imports `provider/`, `host/` or `stdio/`.

Modules: `version`, `base` (WireModel), `descriptor`, `providers_folder`, `answers`, `native`
(native-port frames), `json_text` (their text rule: UTF-8, lone surrogates → U+FFFD), `handoff`
(hand-off messages), `tools` (MCP tools), `resources` (page-resource URIs and names;
standard library only), `extension_rules` (the caps the extension enforces and the worker's error
codes; scripts/gen_wire.py writes them and the other shared values into extension/wire.js),
`client_info` (who an MCP request is from), `display_text` (how a string someone else wrote is
shown), `processes` (`process_alive`), `browser_identity`.

This `__init__` stays empty so that `early_hello` can import `protocol.version`,
`protocol.providers_folder` and `protocol.json_text` (standard library only) before pydantic and
mcp are loaded.
"""
