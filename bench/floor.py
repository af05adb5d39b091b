"""The floor: what an MCP call costs before a browser is asked anything.

A bare `native_host.provider.http.endpoint.McpEndpoint` (the same SDK, uvicorn, transport settings,
`LoopbackGuard` and middleware as the native host) in a subprocess, whose requester
(tests/support/requester.py `FakeRequester`, in place of the native port) answers at once with
constants:

  current     `{"root": FLOOR_ROOT}` (142 bytes as an answer), or the root element in `tree_file`
              (the same-size floor: the browser's own tree, captured just before)
  location    FLOOR_LOCATION: one rect, no window bounds (so no OS window lookup)
  tools.call  PAGE_TOOL_RESULT, for the one constant page tool `p1_const` (`page_tool=True` only)
  page.read   the answer of its `kind` in `page_read_file` (`{"text": {…}, "screenshot": {…}}`: a
              browser's own page.read replies, captured just before; bench/page_read.py), so a
              `resources/read` of `webctx://<instance>/tab-1/text` costs what the MCP stack
              costs to carry that answer

It is HTTP + MCP + JSON + pydantic on both ends. The server runs in its own process, as the
native host does, so the client's CPU and the server's are measured apart.

    with floor_provider() as descriptor:           # a Descriptor, as a native host would publish
        async with open_session(descriptor) as session: ...

The subprocess is this file run as a script (`python bench/floor.py [--tree FILE] [--page-tool]
[--page-read FILE] [--profile OUT]`): it prints one JSON line `{url, token, instance, pid}` and
serves until its stdin closes or SIGTERM. With `--profile OUT`, SIGUSR1 starts cProfile in its
event-loop thread and SIGUSR2 stops it and writes pstats to OUT (bench/profile_current.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from native_host.protocol.descriptor import Descriptor
    from native_host.protocol.native import PageTool
    from tests.support.requester import SentRequest

REPO: Final = Path(__file__).resolve().parent.parent

FLOOR_ROOT: Final[dict[str, Any]] = {
    "id": "app",
    "role": "Application",
    "title": "Floor",
    "attributes": {"version": "0"},
}
"""What the floor answers to `current`: a constant, small root element (142 bytes as an answer)."""

FLOOR_LOCATION: Final[dict[str, Any]] = {
    "location": {"state": "visible", "rects": [{"x": 200, "y": 187, "w": 260, "h": 19}]}
}
"""What the floor answers to `location`: one visible rect, the size of a line of text."""

PAGE_TOOL_NAME: Final = "p1_const"
"""The exposed MCP name of the floor's one page tool (with `page_tool=True`)."""
PAGE_TOOL_RESULT: Final[dict[str, Any]] = {"ok": True, "text": "42"}
"""What the floor's page tool answers: a page's `execute: () => 42`."""

BUNDLE_ID: Final = "bench.floor"
STOP_TIMEOUT_S: Final = 5.0
"""How long the floor server may take to stop after its stdin closes, in seconds; then it is killed."""


def floor_page_tool() -> PageTool:
    """The floor's page tool, as the worker would list it in `tools.changed`."""
    from native_host.protocol.native import PageTool

    return PageTool(
        name=PAGE_TOOL_NAME,
        tool_name="const",
        page_id="tab-1",
        description="A constant.",
        page_title="floor",
        origin="http://127.0.0.1",
        url="http://127.0.0.1/",
        input_schema={"type": "object"},
    )


@contextlib.contextmanager
def floor_provider(
    tree_file: Path | None = None,
    *,
    page_tool: bool = False,
    profile_out: Path | None = None,
    page_read_file: Path | None = None,
) -> Iterator[Descriptor]:
    """Start the floor server subprocess; yield a Descriptor for it (pid and listener_pid: the
    subprocess); stop it when the block ends (stdin closed, killed by pid after STOP_TIMEOUT_S).

    `tree_file`: a JSON root element to answer `current` with instead of FLOOR_ROOT; `page_tool`:
    expose the constant page tool PAGE_TOOL_NAME; `profile_out`: cProfile on SIGUSR1/SIGUSR2 into
    this file; `page_read_file`: JSON `{kind: page.read reply}` to answer `page.read` with. Raises
    RuntimeError when the server exits before it prints its address."""
    from native_host.protocol.descriptor import Descriptor
    from native_host.protocol.version import PROTOCOL_VERSION

    command = [sys.executable, str(Path(__file__).resolve())]
    if tree_file is not None:
        command += ["--tree", str(tree_file)]
    if page_tool:
        command += ["--page-tool"]
    if profile_out is not None:
        command += ["--profile", str(profile_out)]
    if page_read_file is not None:
        command += ["--page-read", str(page_read_file)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("The floor server exited before it started; see the lines above.")
        info = json.loads(line)
        yield Descriptor(
            protocol=PROTOCOL_VERSION,
            bundle_id=BUNDLE_ID,
            name="floor",
            version="0",
            pid=info["pid"],
            instance=info["instance"],
            endpoint=info["url"],
            token=info["token"],
            listener_pid=info["pid"],
        )
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_S)


# ---------------------------------------------------------------------------------------------
# The server side: this file run as a script


def _profile_on_signals(loop: asyncio.AbstractEventLoop, out: Path) -> None:
    """SIGUSR1 starts cProfile (this thread: the event loop that runs uvicorn and the SDK),
    SIGUSR2 stops it and writes pstats to `out`."""
    import cProfile

    profiler = cProfile.Profile()

    def dump() -> None:
        profiler.disable()
        profiler.dump_stats(str(out))

    loop.add_signal_handler(signal.SIGUSR1, profiler.enable)
    loop.add_signal_handler(signal.SIGUSR2, dump)


async def _no_window(_bounds: Any) -> int | None:
    """The floor's window finder: no OS window (the floor does no OS work)."""
    return None


def page_read_answers(page_read_file: Path | None) -> Callable[[SentRequest], Any]:
    """The floor's `page.read` answer: the reply of the request's `kind` in `page_read_file`
    (JSON `{"text": {...}, "screenshot": {...}}`), the same object every time; a kind it does not
    hold is a `read_failed` error, as a worker's failed read would be."""
    from native_host.errors import ExtensionError

    replies = json.loads(page_read_file.read_text(encoding="utf-8")) if page_read_file else {}

    def answer(sent: SentRequest) -> Any:
        reply = replies.get(sent.body.get("kind"))
        if reply is None:
            return ExtensionError("The floor has no such read.", code="read_failed")
        return reply

    return answer


async def serve(
    tree_file: Path | None, with_page_tool: bool, profile_out: Path | None, page_read_file: Path | None = None
) -> None:
    """Start the endpoint, print `{url, token, instance, pid}` as one JSON line, serve until stdin
    closes or SIGTERM (see floor_provider for the arguments)."""
    from native_host.provider.http.endpoint import McpEndpoint
    from tests.support.requester import FakeRequester

    root = json.loads(tree_file.read_text(encoding="utf-8")) if tree_file else FLOOR_ROOT
    # The instance is as long as a native host's (16 random bytes, URL-safe base64), so the
    # same-size floor's answer has the browser's byte count.
    instance = secrets.token_urlsafe(16)
    # Every request gets the same object back: the endpoint checks and encodes it once, as it
    # does a pushed tree.
    requester = FakeRequester(
        {
            "location": FLOOR_LOCATION,
            "tools.call": PAGE_TOOL_RESULT,
            "page.read": page_read_answers(page_read_file),
        },
        default={"root": root},
    )
    endpoint = McpEndpoint(requester, instance=instance, window_finder=_no_window)
    if with_page_tool:
        await endpoint.set_page_tools([floor_page_tool()])
    url = await endpoint.start()
    info = {"url": url, "token": endpoint.token, "instance": instance, "pid": os.getpid()}
    print(json.dumps(info), flush=True)
    loop = asyncio.get_running_loop()
    if profile_out is not None:
        _profile_on_signals(loop, profile_out)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    eof = loop.run_in_executor(None, sys.stdin.buffer.read)
    eof.add_done_callback(lambda _: stop.set())
    await stop.wait()
    await endpoint.stop()
    os._exit(0)  # the stdin reader thread may still block


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--tree", type=Path, help="a JSON root element to answer `current` with")
    parser.add_argument("--page-tool", action="store_true", help=f"expose the page tool {PAGE_TOOL_NAME}")
    parser.add_argument("--profile", type=Path, help="cProfile on SIGUSR1/SIGUSR2 into this file")
    parser.add_argument(
        "--page-read", type=Path, help='JSON {"text": reply, "screenshot": reply} to answer page.read with'
    )
    args = parser.parse_args(argv)
    asyncio.run(serve(args.tree, args.page_tool, args.profile, args.page_read))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
