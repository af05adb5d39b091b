"""`webctx uninstall`: remove exactly what `webctx install` wrote (design.md §6)."""

from __future__ import annotations

import argparse
from typing import Any

from native_host.cli.install import add_common
from native_host.cli.result import Result
from native_host.install.installer import uninstall

HELP = "remove the host manifests and the launcher that `webctx install` wrote"
DESCRIPTION = """\
Remove the webctx native messaging host manifest for --browser (default: all), its registry key on
Windows, the folders `install` created for it (when empty), and — once no manifest is left — the
launcher script. With --user-data-dir DIR, remove DIR/NativeMessagingHosts/webctx.native_host.json.
Files that are already gone are fine; a manifest of the same name that webctx did not write is
left alone. The browser extension itself is removed in chrome://extensions.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `uninstall` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "uninstall", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_common(parser)
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Uninstall; raises InstallError when a file exists but cannot be removed."""
    report = uninstall(args.browser, user_data_dir=args.user_data_dir, dry_run=args.dry_run)
    verb = "Would remove" if args.dry_run else "Removed"
    lines = [f"{verb} {path}" for path in report.removed] or ["Nothing to remove: webctx was not installed."]
    return Result(text="\n".join(lines), data=report.to_json())
