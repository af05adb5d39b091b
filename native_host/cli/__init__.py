"""The `webctx` command line: `cli/main.py` wires one module per command (`add_parser`/`run`).

Commands: `context`, `locate`, `read`, `tools`, `call`, `activity`, `providers`, `mcp`, `conformance`,
`install`, `uninstall`, `doctor`, `extension_path`, `pack`, `demo`; shared by them: `main` (parser,
logging, the one
error catch), `result` (text or `--json`), `arguments` (argument types), `render` (a tree, a tool
list, a tool result as text).
"""
