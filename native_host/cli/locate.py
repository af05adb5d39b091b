"""`webctx locate ID`: where an element of the front (or given) provider is on screen (design.md §1.2, §7)."""

from __future__ import annotations

import argparse
from typing import Any

from native_host.cli.arguments import positive_seconds
from native_host.cli.render import MAX_ID_CHARS, shorten
from native_host.cli.result import Result
from native_host.host import DEFAULT_TIMEOUT_S, locate_sync

HELP = "print where an element (an id from `webctx context`) is on screen, in points"
DESCRIPTION = """\
Act as a desktop host: find the provider like `webctx context` does and call its `location` tool
for ID. Prints the state (visible, offscreen or gone), one rectangle per line of selected text in
global display points (x, y, width, height; origin at the top-left of the primary display), the
OS window number when there is one, and the region a popover should avoid. Pass --instance (the
instance `webctx context` printed) to get `gone` when the provider has restarted since: ids mean
something only with the instance that issued them.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `locate` on `subparsers` (argparse's `_SubParsersAction`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "locate", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("id", metavar="ID", help="an element id from `webctx context`, e.g. sel-3")
    parser.add_argument("--pid", type=int, help="pid of the browser to ask (its main process)")
    parser.add_argument("--instance", help="the provider instance the id came from (see `webctx context`)")
    parser.add_argument("--json", action="store_true", help="print the exact `location` answer as JSON")
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
    """Locate once. Raises WebctxError (unknown/invalid id, no provider; caught in main)."""
    descriptor, answer = locate_sync(args.id, pid=args.pid, instance=args.instance, timeout_s=args.timeout)
    data = answer.to_wire()
    window = f"  window {answer.window}" if answer.window is not None else ""
    lines = [f"{shorten(args.id, MAX_ID_CHARS)}: {answer.state}{window}"]
    if args.instance is not None and args.instance != descriptor.instance:
        lines.append("  " + instance_mismatch(args.instance, descriptor.instance))
    for rect in answer.rects:
        lines.append(f"  rect  x={rect.x:g} y={rect.y:g} w={rect.w:g} h={rect.h:g}  (points)")
    if answer.avoid is not None:
        a = answer.avoid
        lines.append(f"  avoid x={a.x:g} y={a.y:g} w={a.w:g} h={a.h:g}")
    return Result(text="\n".join(lines), data=data)


def instance_mismatch(given: str, running: str) -> str:
    """The sentence saying why an id given with `--instance given` is `gone`: the provider now runs
    instance `running` (it restarted), or `given` is a cut-short copy of `running`."""
    stem = given.rstrip("…").rstrip(".")
    if stem and running.startswith(stem):
        return (
            f"--instance {shorten(given, MAX_ID_CHARS)} is cut short; pass the whole instance "
            f"`webctx context` prints ({running})."
        )
    return (
        f"The provider now runs instance {running}, not {shorten(given, MAX_ID_CHARS)}: it restarted, "
        "so ids from before are gone; run `webctx context` again for fresh ids."
    )
