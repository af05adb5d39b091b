"""webctx native messaging host: makes the browser a context provider (docs/design.md).

The browser starts `python -m native_host` (through the launcher `webctx install` writes); the
desktop side lives in `host/`, `stdio/` and the `webctx` CLI (`cli/`). What both share is in
`protocol/`.

Modules: `__main__` (what the browser runs), `errors` (the error tree), `paths` (where webctx keeps
things), `log_files` (private log folder and files); packages: `protocol`, `provider`, `host`,
`stdio`, `cli`, `install`, `conformance`, `demo`
(docs/internals/native-host.md has a row for every module).
"""

NATIVE_HOST_NAME = "webctx.native_host"
"""Name of the native messaging host (host manifest `name`, `chrome.runtime.connectNative`)."""

__version__ = "0.1.0"
