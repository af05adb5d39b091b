"""`webctx doctor`: check every link of the chain and say which one is broken and how to fix it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from native_host.cli.install import BROWSER_CHOICES
from native_host.cli.result import Result
from native_host.install.doctor import Check, diagnose

HELP = "check every link from the browser to the provider and name the broken one"
DESCRIPTION = """\
Walk the chain and report each link as ok or broken, with the fix: the extension folder and its
key-derived id; the host manifest in each browser's folder (valid JSON, the right name, an
absolute, existing, executable path, allowed_origins holding the extension id); the launcher's
interpreter and that it imports native_host; the providers folder's permissions; descriptors whose
listener is gone; and a running browser whose provider answers `current` with its token. Exit
status 1 when any link is broken. docs/troubleshooting.md lists the same checks, symptoms and fixes.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `doctor` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "doctor", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--browser", choices=BROWSER_CHOICES, default="all", metavar="NAME",
        help="check only this browser's registration (default: every browser found)",
    )
    parser.add_argument(
        "--user-data-dir", type=Path, metavar="DIR",
        help="check DIR/NativeMessagingHosts/ (for a browser started with --user-data-dir=DIR)",
    )
    parser.add_argument(
        "--no-live", action="store_true", help="skip the last link (calling a running provider)"
    )
    parser.add_argument("--json", action="store_true", help="print {ok, checks: [{name, ok, message, fix}]}")
    parser.set_defaults(run=run)
    return parser


def render(checks: list[Check]) -> str:
    """One line per check (`ok`/`BROKEN`), then a summary line."""
    lines = [f"{'ok    ' if c.ok else 'BROKEN'} {c.name}: {c.message}" for c in checks]
    broken = [c for c in checks if not c.ok]
    lines.append("")
    summary = f"{len(broken)} broken link(s); fix them from the top." if broken else "Every link is ok."
    lines.append(summary)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> Result:
    """Run every check; exit code 1 when any failed."""
    checks = diagnose(browser=args.browser, user_data_dir=args.user_data_dir, live=not args.no_live)
    ok = all(c.ok for c in checks)
    data = {"ok": ok, "checks": [c.to_json() for c in checks]}
    return Result(text=render(checks), data=data, exit_code=0 if ok else 1)
