"""`webctx install`: write the native messaging host manifest and its launcher (design.md §6)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from native_host.cli.extension_path import extension_path_text
from native_host.cli.result import Result
from native_host.install.installer import InstallReport, install
from native_host.install.locations import all_browsers, load_steps

HELP = "register the webctx native messaging host with your browser(s)"
DESCRIPTION = """\
Write the native messaging host manifest `webctx.native_host.json` (allowed_origins = the
extension id derived from the `key` in extension/manifest.json, plus every --extension-id) into
each browser's NativeMessagingHosts folder (on Windows: a manifest file and an HKCU registry key),
and a launcher that starts the native host with this exact Python interpreter (browsers start
hosts with a minimal PATH). --browser all (the default) writes it for every supported browser
found on this machine, Flatpak and Snap ones included. With --user-data-dir DIR the manifest goes
into DIR/NativeMessagingHosts/ instead, for a browser started with --user-data-dir=DIR. Then load
the unpacked extension (chrome://extensions, Developer mode, Load unpacked, the folder
`webctx extension-path` prints). Safe to run again; `webctx uninstall` removes exactly what this
wrote; --dry-run prints what would be written and writes nothing.
"""

BROWSER_CHOICES = [*all_browsers(), "all"]
"""Values `--browser` accepts: every browser key of install/locations.py, and "all"."""


def add_common(parser: argparse.ArgumentParser) -> None:
    """The options `install` and `uninstall` share: --browser, --user-data-dir, --dry-run, --json."""
    parser.add_argument(
        "--browser", choices=BROWSER_CHOICES, default="all", metavar="NAME",
        help=f"which browser: {', '.join(BROWSER_CHOICES)} (default: all found)",
    )
    parser.add_argument(
        "--user-data-dir",
        type=Path,
        metavar="DIR",
        help="use DIR/NativeMessagingHosts/ (a browser started with --user-data-dir=DIR reads only that)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print what would change; change nothing")
    parser.add_argument("--json", action="store_true", help="print what was written/removed as JSON")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `install` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "install", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_common(parser)
    parser.add_argument(
        "--extension-id", metavar="ID", action="append", default=[],
        help="also allow this extension id (repeatable), e.g. the Chrome Web Store one",
    )
    parser.set_defaults(run=run)
    return parser


def render(report: InstallReport) -> str:
    """The per-browser text: what was (or would be) written where, and how to load the extension."""
    verb = "Would write" if report.dry_run else "Wrote"
    lines = [f"{verb} the launcher {report.launcher}"]
    for entry in report.browsers:
        lines.append(f"\n{entry.display_name}:")
        lines += [f"  {verb.lower()} {item}" for item in entry.written]
        if entry.browser != "user-data-dir":
            lines.append(f"  load the extension: {load_steps(entry.browser)}")
        if entry.note:
            lines.append(f"  note: {entry.note}")
    if report.skipped:
        lines.append("\nNot found (use --browser NAME to install anyway): " + ", ".join(report.skipped) + ".")
    lines.append(
        f"\nNext: load the extension (chrome://extensions → Developer mode → Load unpacked → "
        f"{extension_path_text()}; its id is {report.extension_id}), then run `webctx doctor`."
    )
    if report.dry_run:
        lines.append("Dry run: nothing was written.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> Result:
    """Install; raises InstallError (message ends with the fix)."""
    report = install(
        args.browser, user_data_dir=args.user_data_dir, extra_ids=args.extension_id, dry_run=args.dry_run
    )
    return Result(text=render(report), data=report.to_json())
