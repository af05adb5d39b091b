"""Answer a client's `initialize` before the slow imports (target: spawn → initialize ≤ 200 ms).

Importing the MCP SDK, pydantic and httpx takes 0.6 to 1.5 s on a busy 2-core machine, and some
clients give an optional stdio server about 1 s before the model's first request. So `webctx mcp`
starts a `Front` first, with the standard library only:

```
cli/main.py (argv is `mcp …`, serving) ─► start_front()          stdlib only, before argparse
   Front: claim fd 0 and fd 1 (fd 0 → /dev/null, fd 1 → stderr, as the SDK's stdio_server does)
     reader thread: every stdin line → `lines` (None at EOF)
       the FIRST line, a well-formed `initialize` → initialize_reply() written at once
   main thread: import mcp, httpx … ─► StdioBridge.serve_stdio() takes the Front (take_front)
     the SDK reads `lines` (the initialize too, so its session state is what it would be),
     its own answer to that initialize is dropped (server.py), the rest goes out as usual
```

The reply is the one the SDK's runner builds for the bridge (tests/unit/stdio/test_first_answer.py
compares them for every version): protocol version negotiated like the SDK (the client's if it is
a handshake version, else the newest), the bridge's capabilities and SERVER_INSTRUCTIONS, which
depend on nothing found at run time, so they are the same at every browser start and are known
before the provider is. Anything else as the first line (a `server/discover`, garbage, an
`initialize` with missing fields) is left to the SDK untouched.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading

from native_host import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs 20-40 ms at load on this path, and only the type checker needs it
    from typing import Any, BinaryIO, Final

SERVER_NAME: Final = "webctx"
"""`serverInfo.name` (the same as protocol/tools.py SERVER_NAME, which imports the SDK)."""

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The MCP versions reachable through `initialize`, oldest first: the SDK's
HANDSHAKE_PROTOCOL_VERSIONS (a unit test keeps them equal)."""

CAPABILITIES: Final[dict[str, Any]] = {
    "resources": {"listChanged": True, "subscribe": False},
    "tools": {"listChanged": True},
}
"""The bridge's `capabilities` in an initialize result (what its ProviderServer declares)."""

SERVER_INSTRUCTIONS: Final = (
    "webctx shows what the user has open and is pointing at in their web browser. "
    "Call `current` for the windows, the tabs (title, URL), the focused tab, the selected text, the "
    "focused field and the link or image under the pointer, as a tree of elements (the same JSON is "
    "the resource webctx://current). "
    "A Page in it links its readable text as a `webctx://…/text` resource: read it with "
    "`resources/read`, or call `read_page` with the Page's id (e.g. `tab-3`). "
    "`location` with an element's id says where it is on screen now (visible, offscreen or gone; "
    "rectangles in screen points). "
    "When no browser is found, the tools answer with an error that says so: ask the user to start "
    "the browser with the webctx extension (`webctx doctor` checks the install)."
)
"""The bridge's `instructions`: the same bytes at every start (no pid, port or instance), since a
client that sees them change may rebuild its tool list and fail a call in flight."""

MAX_FIRST_LINE: Final = 1 << 20
"""A first line longer than this (bytes) is not answered early (an initialize is ~200 bytes)."""


def negotiated_version(requested: str) -> str:
    """The protocol version the bridge answers for a client that asked for `requested`: that one
    when it is a handshake version, else the newest (the SDK's rule)."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def initialize_reply(line: bytes) -> tuple[str | int, bytes] | None:
    """`(id, reply line)` when `line` is one well-formed JSON-RPC `initialize` request (id a string
    or integer; params with a string `protocolVersion`, an object `capabilities` and a
    `clientInfo` object with string `name` and `version`); the reply ends with a newline. None for
    anything else (the SDK answers it)."""
    if len(line) > MAX_FIRST_LINE:
        return None
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    if message.get("jsonrpc") != "2.0":
        return None
    id_, params = message.get("id"), message.get("params")
    if isinstance(id_, bool) or not isinstance(id_, (str, int)) or not isinstance(params, dict):
        return None
    client = params.get("clientInfo")
    if (
        not isinstance(params.get("protocolVersion"), str)
        or not isinstance(params.get("capabilities"), dict)
        or not isinstance(client, dict)
        or not isinstance(client.get("name"), str)
        or not isinstance(client.get("version"), str)
    ):
        return None
    result = {
        "capabilities": CAPABILITIES,
        "instructions": SERVER_INSTRUCTIONS,
        "protocolVersion": negotiated_version(params["protocolVersion"]),
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
    }
    reply = {"jsonrpc": "2.0", "id": id_, "result": result}
    return id_, json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _claim(fd: int, mode: str) -> BinaryIO:
    """A private duplicate of `fd` for the wire, and `fd` pointed elsewhere (stdin: /dev/null,
    stdout: stderr) so that stray reads and prints by libraries or children miss the wire. When
    that fails, the fd itself (nothing diverted)."""
    try:
        private = os.dup(fd)
        os.set_inheritable(private, False)
        diversion = os.open(os.devnull, os.O_RDONLY) if fd == 0 else os.dup(2)
        os.dup2(diversion, fd)
        os.close(diversion)
    except OSError:
        private = fd
    # closefd=False: the reader thread may still block on it at exit
    return os.fdopen(private, mode, closefd=False)  # type: ignore[return-value]


class Front:
    """The stdio wire before the SDK is loaded: `out` (binary, the real stdout), `lines` (every
    stdin line as bytes, in order; None after EOF), `answered` (the id of the initialize answered
    early, None when none was). `start()` claims the fds and starts the reader thread."""

    def __init__(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        self._stdin = stdin
        self.out: BinaryIO | None = stdout
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.answered: str | int | None = None
        self.write_lock = threading.Lock()

    def start(self) -> Front:
        """Claim stdin/stdout (when not given) and start reading; returns self."""
        if self.out is None:
            sys.stdout.flush()
            self.out = _claim(1, "wb")
        if self._stdin is None:
            self._stdin = _claim(0, "rb")
        threading.Thread(target=self._read, name="webctx-mcp-stdin", daemon=True).start()
        return self

    def write(self, data: bytes) -> None:
        """Write `data` to the wire at once (flushed)."""
        assert self.out is not None
        with self.write_lock:
            self.out.write(data)
            self.out.flush()

    def _read(self) -> None:
        assert self._stdin is not None
        first = True
        try:
            for line in self._stdin:
                if first:
                    first = False
                    early = initialize_reply(line)
                    if early is not None:
                        self.answered = early[0]  # before the line is queued: the SDK's answer is dropped
                        self.write(early[1])
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(None)


_front: Front | None = None


def start_front() -> Front:
    """Start this process's Front (once; later calls return the same one)."""
    global _front
    if _front is None:
        _front = Front().start()
    return _front


def take_front() -> Front | None:
    """The Front started by `start_front`, or None when there is none."""
    return _front


def serving(argv: list[str]) -> bool:
    """True when `webctx` `argv` (without the program name) asks to serve stdio MCP: the command
    `mcp` (after any -v) with no --print-config, --check or --help."""
    args = list(argv)
    while args and args[0] in ("-v", "-vv", "-vvv", "--verbose"):
        args.pop(0)
    if not args or args[0] != "mcp":
        return False
    return not any(a.startswith(("--print-config", "--check", "-h", "--help")) for a in args[1:])
