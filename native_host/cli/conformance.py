"""`webctx conformance`: check any running provider against the provider protocol (issue #6).

Prints one line per rule of `native_host.conformance.rules` (pass / warn / fail / skip, the rule
id, what was seen, the rule's source) and exits 1 on any fail (`--strict`: on any warning too).
docs/conformance.md explains every rule.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from native_host.cli.arguments import positive_ms, positive_seconds
from native_host.cli.result import Result
from native_host.conformance import Report, check_provider_sync, find_descriptor
from native_host.conformance.evidence import DEFAULT_BUDGET_MS
from native_host.errors import ProviderUnavailable
from native_host.host import DEFAULT_TIMEOUT_S

HELP = "check a running provider against the provider protocol (pass/warn/fail per rule)"
DESCRIPTION = """\
Run the provider conformance kit against a live provider: its descriptor (fields, protocol
X.Y.Z, file 0600, folder 0700, process, listener on 127.0.0.1), its endpoint's security
(Origin → 403, token → 401, Host), MCP in both eras with the extension declaration, the
`current` tree (fields, instance, ids, roles, content, focus path, hover, visible, default
states), `location` when offered, id stability and latency. The provider is the descriptor
FILE, else the descriptor with pid PID in the providers folder, else the only one there.
Exits 1 when a rule fails (with --strict: also when one warns). Rules: docs/conformance.md.
"""

MARKS = {"pass": "pass", "warn": "WARN", "fail": "FAIL", "skip": "skip"}


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `conformance` on `subparsers`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "conformance",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--pid", type=int, help="check the provider whose descriptor names this pid")
    which.add_argument(
        "--descriptor", type=Path, metavar="FILE", help="check the provider this descriptor describes"
    )
    parser.add_argument(
        "--json", action="store_true", help="print {descriptor, provider, ok, counts, results} as JSON"
    )
    parser.add_argument("--strict", action="store_true", help="warnings fail too")
    parser.add_argument(
        "--budget-ms",
        type=positive_ms,
        default=DEFAULT_BUDGET_MS,
        metavar="MS",
        help=f"latency budget per MCP call in milliseconds (default {DEFAULT_BUDGET_MS:g})",
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"time limit for connecting and for each call (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.set_defaults(run=run)
    return parser


def render(report: Report, *, strict: bool = False) -> str:
    """The report as a table: one line per rule, then a summary line."""
    width = max((len(r.rule) for r in report.results), default=0)
    lines = [f"Conformance of {report.provider}", f"Descriptor: {report.descriptor_path}", ""]
    for r in report.results:
        lines.append(f"  {MARKS[r.status]}  {r.rule:<{width}}  {r.message}  [{r.source}]")
    counts = report.counts()
    verdict = "conforms" if report.ok(strict=strict) else "does NOT conform"
    lines.append("")
    lines.append(
        f"{counts['pass']} passed, {counts['warn']} warned, {counts['fail']} failed, "
        f"{counts['skip']} skipped: the provider {verdict}{' (strict)' if strict else ''}."
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> Result:
    """Find the descriptor, run every rule, report. Raises ProviderUnavailable when there is no
    descriptor to check (caught in main)."""
    path = args.descriptor if args.descriptor is not None else find_descriptor(args.pid)
    if not path.is_file():
        raise ProviderUnavailable(f"No descriptor file at {path}. Run `webctx providers` to list them.")
    report = check_provider_sync(path, timeout_s=args.timeout, budget_ms=args.budget_ms)
    return Result(
        text=render(report, strict=args.strict),
        data=report.to_json(strict=args.strict),
        exit_code=0 if report.ok(strict=args.strict) else 1,
    )
