"""`webctx activity`: which desktop hosts read what from the provider, newest first.

Reads the provider's unlisted MCP resource `webctx://activity` (provider/activity.py) over the
endpoint with its bearer token, like every other command; the popup shows the same list in the
same words (extension/popup/activity.js `describeRead`).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from native_host.cli.arguments import positive_seconds
from native_host.cli.render import shorten
from native_host.cli.result import Result
from native_host.host import DEFAULT_TIMEOUT_S, HostClient
from native_host.protocol.descriptor import Descriptor

HELP = "list which desktop hosts read the browser's context lately (the last 50 reads)"
DESCRIPTION = """\
Find the provider like `webctx context` does, connect over MCP with its bearer token and print its
last 50 reads, newest first: when, the client's self-declared name and version (from its MCP
clientInfo, so any local program with the token can claim any name), and what it read, named by
page titles and element ids (never the content). The list lives in the provider's memory: it
starts empty when the browser (or the provider switch) starts. --json prints {"entries": [...]}.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `activity` on `subparsers` (argparse's `_SubParsersAction`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "activity", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pid", type=int, help="pid of the browser to ask (its main process)")
    parser.add_argument("--json", action="store_true", help='print {"entries": [...]} as JSON')
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"time limit for connecting and for the answer (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Ask once. Raises ProviderUnavailable / ProviderRejected / WebctxError (caught in main)."""
    descriptor, entries = asyncio.run(read_activity(HostClient(timeout_s=args.timeout), args.pid))
    now_ms = int(time.time() * 1000)
    header = f"{descriptor.name} {descriptor.version} (pid {descriptor.pid}): {len(entries)} read(s)"
    lines = [header, *(f"  {describe_read(entry, now_ms)}" for entry in entries)]
    return Result(text="\n".join(lines), data={"entries": entries})


async def read_activity(client: HostClient, pid: int | None) -> tuple[Descriptor, list[dict[str, Any]]]:
    """The chosen provider's descriptor and its activity entries (newest first)."""
    async with client.session(pid) as session:
        return session.descriptor, await session.activity()


def _quoted(title: str | None, limit: int = 40) -> str:
    return f"'{shorten(title or 'an untitled page', limit)}'"


def ago(at_ms: int, now_ms: int) -> str:
    """`just now`, `12 s ago`, `2 min ago`, `3 h ago`, `2 d ago` (the popup's words)."""
    seconds = max(0, (now_ms - at_ms) // 1000)
    if seconds < 10:
        return "just now"
    if seconds < 60:
        return f"{seconds} s ago"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86400} d ago"


def describe_read(entry: dict[str, Any], now_ms: int) -> str:
    """One entry in words: "Claude Code 1.2 read the selection in 'Tidal…' 2 min ago"."""
    client = entry.get("client") or {}
    # A client names itself (any text, newlines included): one line, cut, so it cannot forge entries.
    who = shorten(" ".join(str(part) for part in (client.get("name"), client.get("version")) if part), 80)
    who = f"{who or 'unknown client'} (via {shorten(str(client['via']), 40)})" if client.get("via") else who
    elements = [e for e in entry.get("elements") or [] if isinstance(e, dict)]
    titles = {e.get("page"): e.get("title") for e in elements if e.get("kind") == "page"}
    kinds = {e.get("kind"): e for e in elements}
    tool = shorten(str(entry.get("tool", "")), 80)
    if tool == "current":
        if "selection" in kinds:
            what = f"read the selection in {_quoted(titles.get(kinds['selection'].get('page')))}"
        elif "field" in kinds:
            what = f"read the focused field in {_quoted(titles.get(kinds['field'].get('page')))}"
        elif titles:
            pages = list(titles.values())
            more = f" and {len(pages) - 1} more page(s)" if len(pages) > 1 else ""
            what = f"read the page {_quoted(pages[0])}{more}"
        else:
            what = "read the browser's windows"
    elif tool == "location":
        what = f"located {elements[0].get('id') if elements else 'an element'} on the screen"
    elif tool == "resources/read":  # a page resource (provider/page_resources.py _record)
        title = _quoted(next(iter(titles.values()), None))
        what = ("read a screenshot of " if "screenshot" in kinds else "read the text of " if "text" in kinds
                else "read the page ") + title
    else:
        where = f" in {_quoted(next(iter(titles.values())))}" if titles else ""
        what = f"called the page tool {tool}{where}"
    failed = "" if entry.get("ok", True) else " (it failed)"
    return f"{who or 'unknown client'} {what}{failed} {ago(int(entry.get('at', now_ms)), now_ms)}"
