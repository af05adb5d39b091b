"""The `webctx` command line: `cli/main.py` wires one module per command (`add_parser`/`run`)."""
