"""`webctx providers`: every descriptor in the providers folder, usable or why not (design.md §3, §7)."""

from __future__ import annotations

import argparse
from typing import Any

from native_host import paths
from native_host.cli.result import Result
from native_host.host import discover

HELP = "list the providers' descriptors and whether each is usable (or why not)"
DESCRIPTION = """\
List every descriptor in the providers folder (CONTEXT_PROVIDERS_DIR overrides it) with the
verdict of the desktop-host checks: the process is running, the bundle id matches its
executable, the protocol is 0.2.x, the endpoint is on 127.0.0.1 and the process listening there
is the browser or one of its child processes. A descriptor another user could have written (the
folder or file group/world-writable or not yours, a symlink) is ignored; one others can only read
is used with a warning. Tokens are never printed.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `providers` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "providers", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--json", action="store_true", help="print {folder, providers: [{file, usable, reason?, …}]} as JSON"
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Discover and check every descriptor; never fails because of a bad one."""
    folder = paths.providers_dir()
    found = discover(folder)
    lines = [f"Providers folder: {folder}"]
    if not found:
        lines.append("No descriptors: no provider is running. Try `webctx demo`.")
    for info in found:
        d = info.descriptor
        if info.usable and d is not None:
            origin = d.endpoint.split("/mcp")[0]
            lines.append(f"  usable    {d.name} {d.version} (pid {d.pid})  {d.bundle_id}  {origin}")
            if info.warning:
                lines.append(f"  warning   {info.warning}")
        else:
            who = f"{d.name} (pid {d.pid})" if d is not None else info.path.name
            reason = info.rejection.reason if info.rejection else "unknown"
            message = info.rejection.message if info.rejection else ""
            lines.append(f"  ignored   {who}: {reason}. {message}")
    data = {"folder": str(folder), "providers": [info.to_json() for info in found]}
    return Result(text="\n".join(lines), data=data)
