"""webctx native messaging host: makes the browser a context provider (SPEC.md).

The browser starts `python -m native_host` (through the launcher `webctx install` writes); the
desktop side lives in `host_client` and the `webctx` CLI.
"""

PROTOCOL_VERSION = "0.2.0"
"""Provider protocol version, the same in the descriptor, the extension declaration and `current`."""

NATIVE_HOST_NAME = "webctx.native_host"
"""Name of the native messaging host (host manifest `name`, `chrome.runtime.connectNative`)."""

__version__ = "0.1.0"
