"""`webctx demo`: run the whole chain on this machine and print what a desktop host sees (design.md §6)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from typing import Any, Final

from mcp import types

from native_host.cli.arguments import positive_seconds
from native_host.cli.render import MAX_TEXT_CHARS, render_tree, result_text, shorten
from native_host.cli.result import Result, emit
from native_host.demo.runner import DEFAULT_DEMO_TIMEOUT_S, DEMO_TOOL, DemoBrowser, launch_demo
from native_host.errors import WebctxError
from native_host.host import READ_TIMEOUT_S, iter_elements
from native_host.protocol.answers import Element
from native_host.protocol.resources import TEXT_MIME_TYPE, parse_page_uri

PAGE_TEXT_LINES: Final = 5
"""How many lines of the demo page's text (read through `resources/read`) the demo prints."""

PAGE_TEXT_LINE_CHARS: Final = 100
"""Each of those lines is cut to this many characters."""

HELP = "start a headless browser with the extension on a demo page and print its context"
DESCRIPTION = """\
Run webctx end to end: start an installed Chromium-family browser headless (Chromium, Chrome, Edge,
Brave, …: the first one found), with a temporary profile, on a bundled demo page that selects a
passage, and load the webctx extension over the browser's DevTools pipe (Google Chrome ignores
--load-extension); the extension starts its native host. Then act as a desktop host: wait for the
browser's descriptor, connect over MCP, call `current` until it holds the selected text, print the
element tree (or the exact answer with --json), locate the selection, list the MCP tools, call the
page's own tool (get_passage) and print its result, read the page's text through the page's MCP
resource (resources/read) and print its first lines, and shut the browser down. Progress goes to
stderr; the browser's own output to a log file. Needs a browser: `sudo apt-get install chromium` on
Debian/Ubuntu, Google Chrome on macOS. On Windows the pipe cannot be handed to the browser: the
demo uses --load-extension there, which Edge, Brave and Chromium honour (Google Chrome 137+ does not).
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `demo` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "demo", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print the exact `current` answer as JSON")
    parser.add_argument(
        "--browser",
        metavar="PATH",
        help="the browser executable (default: the first Chromium-family one found)",
    )
    parser.add_argument(
        "--keep-open",
        action="store_true",
        help="leave the browser running after printing (try `webctx context --pid PID` meanwhile); "
        "Ctrl-C stops it",
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_DEMO_TIMEOUT_S,
        metavar="SECONDS",
        help=f"how long to wait for the provider and the selection (default {DEFAULT_DEMO_TIMEOUT_S:g})",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Launch, wait, print, stop. Raises BrowserNotFound, InstallError, ProviderUnavailable, …"""
    started = time.monotonic()
    deadline = started + args.timeout
    # SIGTERM (e.g. `timeout webctx demo`) unwinds like Ctrl-C, so the browser is still stopped.
    previous = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    try:
        with launch_demo(args.browser) as demo:
            demo.progress("waiting for the browser to become a provider")
            descriptor = demo.wait_for_provider(deadline)
            demo.progress(
                f"provider up after {time.monotonic() - started:.1f} s: {descriptor.name} "
                f"{descriptor.version} (pid {descriptor.pid}); asking `current` for the selection"
            )
            current = demo.wait_for_selection(deadline)
            demo.progress(f"got the context after {time.monotonic() - started:.1f} s")
            text = f"{descriptor.name} {descriptor.version} (pid {descriptor.pid})\n" + render_tree(
                current.answer.root
            )
            if not args.json:
                texts = [e for e in iter_elements(current.answer.root) if e.role == "Text" and e.selected]
                if texts:
                    text += "\n" + demo.locate(texts[0].id)
                tools = demo.tools()
                if tools:
                    text += "\nMCP tools: " + ", ".join(tool.name for tool in tools)
                    text += _page_tool_line(demo, tools)
                text += _page_text_lines(demo, current.answer.root)
            result = Result(text=text, data=current.raw)
            if args.keep_open:
                emit(result, args.json)
                pid = descriptor.pid
                demo.progress(
                    f"browser left running (pid {pid}); try `webctx context --pid {pid}` meanwhile, "
                    "and press Ctrl-C to stop it"
                )
                try:
                    while demo.process.poll() is None:
                        time.sleep(0.5)
                except KeyboardInterrupt:
                    print(file=sys.stderr)
                result.printed = True
            return result
    finally:
        signal.signal(signal.SIGTERM, previous)


def _page_tool_line(demo: DemoBrowser, tools: list[types.Tool]) -> str:
    """"\n<name> → <result>" for the demo page's own tool (design.md §6: the demo calls the page's tools),
    the reason when the call failed, "" when the page offered no tool (a browser without WebMCP
    and the polyfill switched off)."""
    try:
        called = demo.call_page_tool(tools)
    except WebctxError as exc:
        return f"\n{DEMO_TOOL} could not be called: {exc.message}"
    if called is None:
        return ""
    name, result = called
    text = " ".join(result_text(result).split())
    if result.is_error:
        return f"\n{name} → error: {shorten(text, MAX_TEXT_CHARS)}"
    return f"\n{name} → “{shorten(text, MAX_TEXT_CHARS)}”"


def _page_text_lines(demo: DemoBrowser, root: Element) -> str:
    """"\nPage text (resources/read <uri>):" and the first PAGE_TEXT_LINES non-blank lines of the
    demo page's Markdown, each cut to PAGE_TEXT_LINE_CHARS, read through the page's text resource
    as a desktop host would (the `resource_link` its Page carries in `current`). Best
    effort, like the page tool: "" when the Page has no text link (page text switched off, an
    extension without page resources) or the read fails."""
    uri = next(
        (
            str(block.get("uri"))
            for page in iter_elements(root)
            if page.role == "Page" and (page.url or "").rstrip("/") == demo.page_url.rstrip("/")
            for block in page.content or []
            if block.get("type") == "resource_link" and block.get("mimeType") == TEXT_MIME_TYPE
        ),
        None,
    )
    if uri is None or parse_page_uri(uri) is None:
        return ""
    pid = demo.descriptor.pid if demo.descriptor is not None else demo.pid
    try:
        result = asyncio.run(demo.client.read_resource(uri, pid, timeout_s=READ_TIMEOUT_S))
    except WebctxError as exc:
        demo.progress(f"could not read the page's text: {exc.message}")
        return ""
    markdown = "\n".join(c.text for c in result.contents if isinstance(c, types.TextResourceContents))
    lines = [shorten(line, PAGE_TEXT_LINE_CHARS) for line in markdown.splitlines() if line.strip()]
    if not lines:
        return ""
    shown = "\n".join(f"  {line}" for line in lines[:PAGE_TEXT_LINES])
    return f"\nPage text (resources/read {uri}):\n{shown}"


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
