"""`webctx mcp`: the stdio MCP server for clients that cannot talk to the provider directly (issue #8).

`webctx mcp` serves MCP on stdin/stdout until stdin closes (`stdio.server.StdioBridge`); nothing
but MCP frames reaches stdout, logs go to `<log dir>/mcp.log`. `webctx mcp --print-config CLIENT`
prints the JSON (Codex: TOML, fast-agent: YAML) to paste into that client's configuration
(`stdio.clients.CLIENTS`) on stdout, and on stderr where the file lives, what else the client asks
of the user (a trusted folder, an auth method) and the client's own `… mcp add` command.
`webctx mcp --check` says whether the bridge, started in this environment (and with this --pid),
would reach a browser (`stdio.check`): exit 0 when it would, 1 when not.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any, Final

import anyio

from native_host.cli.result import Result
from native_host.log_files import rotating_log_file
from native_host.stdio.clients import CLIENT_NAMES, config_text, where_text

log = logging.getLogger(__name__)

LOG_FILE_NAME: Final = "mcp.log"
"""The bridge's log file inside `paths.log_dir()` (rotated at 1 MiB, 3 kept)."""

HELP = "serve the browser's context over MCP on stdin/stdout (Claude, Cursor, VS Code, Gemini CLI, Codex …)"
DESCRIPTION = f"""\
Run a stdio MCP server that bridges to the browser provider. Any MCP client can launch it: it finds
the provider like `webctx context` does (--pid, else the browser in front or last in front, else
the only or most recently started one), connects with the descriptor's token and offers the
provider's tools (`current`, `location`, `read_page` for a page's text, and page tools where the
provider has them) and resources (webctx://current and each open page's text). It survives the
browser restarting; while no browser runs, calls answer with a clear error after a short wait for
one to start.

--print-config CLIENT prints the configuration snippet for one of: {", ".join(CLIENT_NAMES)}
(on stdout), with what that client needs to use webctx headless and interactive (Codex waits for
the bridge and runs its tools without a prompt; Claude Code loads its tools into the first prompt;
Gemini CLI trusts them), and on stderr where it goes, what each setting trusts, what else the
client asks of you, and the client's own `… mcp add` command where it has one.

--check looks for the browser exactly as the bridge would in this environment (the providers
folder from CONTEXT_PROVIDERS_DIR or XDG_RUNTIME_DIR, and --pid), connects to it and lists its
tools. It prints the folder it read, every descriptor there (live, stale, refused or skipped, and
why), then OK or the problem and its fix; it exits 0 when the bridge would reach a browser, 1 when
not. Run it with the environment your MCP client gives the bridge. When the bridge finds no
browser at start, its initialize `instructions` say the same in one line.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `mcp` on `subparsers` (argparse's `_SubParsersAction`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "mcp", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pid", type=int, help="always use the provider of this browser (its main process)")
    parser.add_argument(
        "--print-config",
        choices=CLIENT_NAMES,
        metavar="CLIENT",
        help=f"print the configuration snippet for CLIENT ({', '.join(CLIENT_NAMES)}) and exit",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="say whether the bridge would find a browser here (folder, descriptors, fix) and exit: "
        "0 if it would, 1 if not",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> Result:
    """`--print-config`: the snippet on stdout, where it goes on stderr. `--check`: the report
    (stdio.check.BridgeReport.text) on stdout, exit 0 when a browser was reached, else 1. Otherwise
    serve stdio MCP until stdin closes (exit 0)."""
    if args.print_config:
        sys.stdout.write(config_text(args.print_config))
        sys.stdout.flush()
        print(where_text(args.print_config), file=sys.stderr)
        return Result(text="", printed=True)
    if args.check:
        from native_host.stdio.check import check_bridge  # imports mcp: only when checking

        report = anyio.run(check_bridge, None, args.pid)
        return Result(text=report.text(), exit_code=0 if report.ok else 1)
    _log_to_file()
    from native_host.stdio.server import StdioBridge  # imports mcp/uvicorn: only when serving

    log.info("webctx mcp starting (pid pinned: %s)", args.pid)
    anyio.run(StdioBridge(pid=args.pid).serve_stdio)
    log.info("webctx mcp: stdin closed, exiting")
    return Result(text="", printed=True)


def _log_to_file() -> None:
    """Send log records to `mcp.log` instead of `cli.log` (stderr keeps WARNING and up): the bridge
    runs for as long as the client does; other libraries' DEBUG chatter is left out."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, logging.FileHandler):
            root.removeHandler(handler)
            handler.close()
    for noisy in ("mcp", "httpx2", "httpcore", "anyio"):
        logging.getLogger(noisy).setLevel(logging.INFO)
    try:
        # folder 0700, file 0600 whatever the umask, rotated files too
        file_handler = rotating_log_file(LOG_FILE_NAME, max_bytes=1 << 20, backup_count=3)
    except OSError:
        return
    file_handler.setLevel(logging.DEBUG)
    file_format = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
    file_handler.setFormatter(logging.Formatter(file_format))
    root.addHandler(file_handler)
