"""`webctx call NAME [JSON]`: call one MCP tool of the front (or given) provider and print the result
(design.md §1, §5, §6, §7)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any, Final

from mcp import types

from native_host.cli.arguments import positive_seconds
from native_host.cli.render import MAX_ID_CHARS, result_text, shorten
from native_host.cli.result import Result, terminal_safe
from native_host.errors import WebctxError
from native_host.host import HostClient
from native_host.protocol.native import PAGE_TOOL_DEADLINE_MS

DEFAULT_CALL_TIMEOUT_S: Final = PAGE_TOOL_DEADLINE_MS / 1000 + 5
"""`webctx call`'s default time limit, in seconds: a page tool may run for the provider's whole
page-tool deadline (60 s, design.md §5), after which the provider answers `isError` itself; the extra
5 s let that answer arrive instead of our own timeout."""

EXAMPLE: Final = """webctx call location '{"id": "sel-1"}'"""

HELP = "call one of the provider's MCP tools (`webctx tools` lists them) and print the result"
DESCRIPTION = f"""\
Act as a desktop host: find the provider like `webctx context` does, connect over MCP with its
bearer token, call tool NAME with JSON (one JSON object, default {{}}; `-` reads it from stdin)
and print the result's content: text as it is, the structured result as indented JSON. A result
marked isError prints its message on stderr and exits 1. --json prints the exact result
({{content, structuredContent, isError}}), errors included. Example:

  {EXAMPLE}
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `call` on `subparsers` (argparse's `_SubParsersAction`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "call", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("name", metavar="NAME", help="the tool's name as `webctx tools` prints it")
    parser.add_argument(
        "arguments", metavar="JSON", nargs="?", default="{}", help="one JSON object (default {}); `-`: stdin"
    )
    parser.add_argument("--pid", type=int, help="pid of the browser to ask (its main process)")
    parser.add_argument("--json", action="store_true", help="print the exact tool result as JSON")
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_CALL_TIMEOUT_S,
        metavar="SECONDS",
        help=f"time limit for connecting and for the call (default {DEFAULT_CALL_TIMEOUT_S:g}: a page "
        "tool may run for up to 60 s)",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Call once. Exit 0 with the result; 1 when the result is `isError` (its message on stderr).
    Raises WebctxError for bad JSON (`bad_arguments`), an unknown tool (`mcp_error`), no provider."""
    arguments = parse_arguments(sys.stdin.read() if args.arguments == "-" else args.arguments)
    name = args.name
    try:
        result = asyncio.run(_call(HostClient(timeout_s=args.timeout), name, arguments, args.pid))
    except WebctxError as exc:
        if exc.code != "mcp_error":
            raise
        raise WebctxError(
            f"{exc.message.rstrip('.')}. Run `webctx tools` for the names and descriptions it offers.",
            code=exc.code,
        ) from None
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if result.is_error:
        message = " ".join(result_text(result).split()) or "no reason given"
        said = f"webctx: `{shorten(name, MAX_ID_CHARS)}` answered with an error: {message}"
        print(terminal_safe(said), file=sys.stderr)  # the page's words
        return Result(text="", data=data, exit_code=1)
    return Result(text=result_text(result), data=data)


def parse_arguments(text: str) -> dict[str, Any]:
    """`text` as a tool's arguments: one JSON object. Raises WebctxError (`bad_arguments`) for
    anything else, in one sentence ending with the fix (the shell's quoting is the usual cause)."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise WebctxError(
            f"The arguments are not valid JSON ({exc}). Pass one JSON object in single quotes, "
            f"e.g. {EXAMPLE}",
            code="bad_arguments",
        ) from None
    if not isinstance(value, dict):
        raise WebctxError(
            f"The arguments must be one JSON object, not {_json_kind(value)}. Wrap them in {{}}, "
            f"e.g. {EXAMPLE}",
            code="bad_arguments",
        )
    return value


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "an array"


async def _call(
    client: HostClient, name: str, arguments: dict[str, Any], pid: int | None
) -> types.CallToolResult:
    async with client.session(pid) as session:
        return await session.call_tool(name, arguments)
