"""`webctx extension-path`: print the folder to load as an unpacked extension, alone on its line."""

from __future__ import annotations

import argparse
from typing import Any

from native_host import paths
from native_host.cli.result import Result
from native_host.errors import InstallError
from native_host.install.firefox import build_firefox, firefox_build_dir

HELP = "print the folder to choose in chrome://extensions → Load unpacked"
DESCRIPTION = """\
Print the absolute path of the webctx browser extension folder, and nothing else, so scripts can
use it (e.g. `chromium --load-extension="$(webctx extension-path)"`). To load it by hand: open
chrome://extensions, turn on Developer mode, click Load unpacked and choose this folder. Exits 1
when the extension files are missing from this installation. With --firefox, first build the
Firefox version (the same files, a Firefox manifest.json) into webctx's data folder and print that
folder; load its manifest.json in about:debugging → This Firefox → Load Temporary Add-on.
"""


def extension_path_text() -> str:
    """The extension folder as a string, or a phrase naming it when the files are missing."""
    try:
        return str(paths.extension_dir())
    except FileNotFoundError:
        return "the extension/ folder of webctx"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `extension-path` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "extension-path", help=HELP, description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--firefox", action="store_true", help="build the Firefox version and print its folder"
    )
    parser.add_argument("--json", action="store_true", help='print {"path": …} as JSON')
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """The path; raises InstallError when the extension files are missing."""
    try:
        folder = paths.extension_dir()
    except FileNotFoundError as exc:
        raise InstallError(f"{exc}", fix="pip install --force-reinstall webctx") from None
    if args.firefox:
        target = firefox_build_dir()
        try:
            folder = build_firefox(target, folder)
        except OSError as exc:
            raise InstallError(
                f"Cannot build the Firefox extension in {target}: {exc}. Make the folder writable.",
                path=str(target), fix=f"make {target.parent} writable",
            ) from None
    return Result(text=str(folder), data={"path": str(folder)})
