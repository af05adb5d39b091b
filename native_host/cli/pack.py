"""`webctx pack`: build the extension's release zips (Chromium stores, unsigned Firefox)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from native_host.cli.result import Result
from native_host.errors import InstallError
from native_host.install.pack import pack

HELP = "build the extension zips for the Chrome Web Store / Edge Add-ons and for Firefox"
DESCRIPTION = """\
Write two zips into --out (default ./dist): webctx-<version>-chromium.zip, ready to upload to the
Chrome Web Store or Edge Add-ons (the manifest without the development `key`: the store assigns
the extension its own id), and webctx-<version>-firefox.zip, the unsigned Firefox build for
addons.mozilla.org to sign. Neither holds the extension's tests. The extension's version must
equal the webctx package's. Once the store has given the extension its id, users allow it with
`webctx install --extension-id <that id>`.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `pack` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "pack", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", type=Path, default=Path("dist"), metavar="DIR",
        help="folder for the zips (default: ./dist, created if missing)",
    )
    parser.add_argument("--json", action="store_true", help="print {chromium, firefox, version} as JSON")
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """Pack; raises InstallError (versions differ, files missing, the folder is not writable)."""
    out: Path = args.out.absolute()
    try:
        packed = pack(out)
    except FileNotFoundError as exc:
        raise InstallError(f"{exc}", fix="pip install --force-reinstall webctx") from None
    except OSError as exc:
        raise InstallError(
            f"Cannot write the zips into {out}: {exc}. Choose a writable folder with --out.",
            path=str(out), fix="webctx pack --out DIR",
        ) from None
    text = "\n".join([
        f"Chromium (Chrome Web Store, Edge Add-ons): {packed.chromium}",
        f"Firefox (unsigned, for addons.mozilla.org): {packed.firefox}",
        "After the store assigns the extension its id, users run `webctx install --extension-id <id>`.",
    ])
    return Result(text=text, data=packed.to_json())
