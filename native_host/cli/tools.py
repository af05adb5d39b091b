"""`webctx tools`: list the front (or given) provider's MCP tools, page tools included
(design.md §5, §6, §7)."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from mcp import types

from native_host.cli.arguments import positive_seconds
from native_host.cli.render import describe_tool
from native_host.cli.result import Result
from native_host.host import DEFAULT_TIMEOUT_S, HostClient
from native_host.protocol.descriptor import Descriptor

HELP = "list the provider's MCP tools: `current`, `location`, `read_page` and the page tools of visible pages"
DESCRIPTION = """\
Act as a desktop host: find the provider like `webctx context` does, connect over MCP with its
bearer token and print its `tools/list`. Each tool is a line with the name to pass to `webctx call`,
for a page tool the page it runs in (page=tab-N) and the page's origin (frame= for a tool of an
embedded frame), then `read-only` or `may act` (the tool's readOnlyHint) and `asks first` when the
browser asks Allow or Deny before it runs; its description follows, indented. Page tools come from
web pages: their descriptions are the page's words. --json prints the exact answer ({"tools": [...]}).
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `tools` on `subparsers` (argparse's `_SubParsersAction`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "tools", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pid", type=int, help="pid of the browser to ask (its main process)")
    parser.add_argument("--json", action="store_true", help="print the exact `tools/list` answer as JSON")
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"time limit for connecting and for the listing (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """List once. Raises ProviderUnavailable / ProviderRejected / WebctxError (caught in main)."""
    descriptor, tools = asyncio.run(list_tools(HostClient(timeout_s=args.timeout), args.pid))
    header = f"{descriptor.name} {descriptor.version} (pid {descriptor.pid}): {len(tools)} tool(s)"
    data = {"tools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]}
    return Result(text="\n".join([header, *(describe_tool(tool) for tool in tools)]), data=data)


async def list_tools(client: HostClient, pid: int | None) -> tuple[Descriptor, list[types.Tool]]:
    """The chosen provider's descriptor and its whole `tools/list` (every page), over one session."""
    async with client.session(pid) as session:
        return session.descriptor, await session.list_tools()
