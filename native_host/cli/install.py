"""`webctx install`: write the native messaging host manifest and its launcher (SPEC §6)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from native_host import paths
from native_host.cli.result import Result
from native_host.install.locations import LOCATIONS
from native_host.install.manifests import install

HELP = "register the webctx native messaging host with your browser(s)"
DESCRIPTION = """\
Write the native messaging host manifest `webctx.native_host.json` (allowed_origins = the
extension id derived from the `key` in extension/manifest.json) into each browser's
NativeMessagingHosts folder, and a launcher script that starts the native host with this exact
Python interpreter (browsers start hosts with a minimal PATH). --browser all (the default) writes
it for every supported browser that is installed. With --user-data-dir DIR the manifest goes into
DIR/NativeMessagingHosts/ instead, for a browser started with --user-data-dir=DIR. Then load the
unpacked extension (chrome://extensions, Developer mode, Load unpacked). Safe to run again;
`webctx uninstall` removes exactly what this wrote.
"""

BROWSER_CHOICES = [*sorted({loc.browser for loc in LOCATIONS if loc.wired}), "all"]
"""Values `--browser` accepts: the browsers wired in install/locations.py, and "all"."""


def add_common(parser: argparse.ArgumentParser) -> None:
    """The options `install` and `uninstall` share: --browser, --user-data-dir, --json."""
    parser.add_argument(
        "--browser", choices=BROWSER_CHOICES, default="all", help="which browser (default: all installed)"
    )
    parser.add_argument(
        "--user-data-dir",
        type=Path,
        metavar="DIR",
        help="use DIR/NativeMessagingHosts/ (a browser started with --user-data-dir=DIR reads only that)",
    )
    parser.add_argument("--json", action="store_true", help="print what was written/removed as JSON")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `install` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "install", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_common(parser)
    parser.add_argument(
        "--extension-id", metavar="ID", help="allow this extension id instead of the one derived from the key"
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Install; raises InstallError (message ends with the fix)."""
    report = install(args.browser, user_data_dir=args.user_data_dir, ext_id=args.extension_id)
    lines = [f"Launcher: {report.launcher}"]
    lines += [f"Wrote the host manifest {path}" for path in report.written]
    lines += [f"Skipped {note}" for note in report.skipped]
    try:
        extension = str(paths.extension_dir())
    except FileNotFoundError:
        extension = "the extension/ folder of webctx"
    lines.append(
        f"Next: load the unpacked extension from {extension} (chrome://extensions → Developer mode → "
        f"Load unpacked); its id is {report.extension_id}."
    )
    return Result(text="\n".join(lines), data=report.to_json())
