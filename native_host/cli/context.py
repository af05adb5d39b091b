"""`webctx context`: ask the front (or given) provider what the user has open and points at (design.md §7)."""

from __future__ import annotations

import argparse
from typing import Any

from native_host.cli.arguments import positive_seconds
from native_host.cli.render import render_tree
from native_host.cli.result import Result
from native_host.host import DEFAULT_TIMEOUT_S, current_sync

HELP = "print the context tree of the front browser (the provider's `current` answer)"
DESCRIPTION = """\
Act as a desktop host: find the provider (--pid, else the app in front on X11, else the only one
running), check its descriptor, connect over MCP with its bearer token, call `current` and print
the element tree: role, id, title/url, states, and the selected text shortened. Answers whose
instance or protocol differ from the descriptor are dropped. --json prints the exact answer
({protocol, instance, root}).
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `context` on `subparsers` (argparse's `_SubParsersAction`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "context", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pid", type=int, help="pid of the browser to ask (its main process)")
    parser.add_argument("--json", action="store_true", help="print the exact `current` answer as JSON")
    parser.add_argument(
        "--legacy",
        action="store_true",
        help="use the 2025-11-25 MCP handshake instead of the default (which lands on 2026-07-28)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"time limit for connecting and for the call (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Fetch `current` once. Raises ProviderUnavailable / ProviderRejected (caught in main)."""
    result = current_sync(args.pid, mode="legacy" if args.legacy else "auto", timeout_s=args.timeout)
    d = result.descriptor
    # The whole instance: `webctx locate ID --instance <it>` compares it exactly (design.md §7).
    header = f"{d.name} {d.version} (pid {d.pid}, instance {d.instance})"
    return Result(text=header + "\n" + render_tree(result.answer.root), data=result.raw)
