"""`webctx`: the command line (design.md §6, §7). One module per command; errors are caught here, once.

Every command module has `add_parser(subparsers)` (which sets `run` as the handler) and
`run(args) -> Result`. A `WebctxError` prints its sentence (and `.fix`, when it adds something) to
stderr and exits 1; the traceback goes to the log file only. The console shows WARNING and up
(`-v`: INFO, `-vv`: DEBUG); the log file `<log dir>/cli.log` gets DEBUG.
"""

from __future__ import annotations

import sys

from native_host.stdio.first_answer import serving, start_front  # the standard library only

if serving(sys.argv[1:]):  # `webctx mcp`: answer `initialize` before the slow imports below
    start_front()

try:  # a Ctrl-C this early (the console script is importing us) ends as cleanly as a later one
    import argparse
    import importlib
    import logging
    from collections.abc import Callable, Sequence
    from types import ModuleType
    from typing import Final

    from native_host import __version__
    from native_host.cli.result import Result, emit, terminal_safe
    from native_host.errors import WebctxError
    from native_host.log_files import rotating_log_file
except KeyboardInterrupt:
    print("webctx: interrupted.", file=sys.stderr)
    sys.exit(130)

log = logging.getLogger("native_host.cli")

LOG_FILE_NAME: Final = "cli.log"
"""The CLI's log file inside `paths.log_dir()` (rotated at 1 MiB, 3 kept)."""

COMMANDS: Final = (
    "context",
    "locate",
    "read",
    "tools",
    "call",
    "activity",
    "providers",
    "mcp",
    "conformance",
    "install",
    "uninstall",
    "doctor",
    "extension_path",
    "pack",
    "demo",
)
"""The command modules in native_host/cli/, in the order `webctx --help` lists them. Imported
only inside `main` (they pull in pydantic, mcp, …, which takes about a second), so that a Ctrl-C
during those imports is caught like any other (`webctx: interrupted.`, exit 130)."""


def command_modules(names: Sequence[str] = COMMANDS) -> list[ModuleType]:
    """Import and return the command modules `names` (default COMMANDS), in order."""
    return [importlib.import_module(f"native_host.cli.{name}") for name in names]


def build_parser(names: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The argparse tree: global `-v`/`--version`, one subparser per command in `names` (default
    COMMANDS: all)."""
    parser = argparse.ArgumentParser(
        prog="webctx",
        description=(
            "webctx makes a web browser a context provider: desktop AI hosts can ask it what the user "
            "has open and is pointing at. These commands install the browser side and act as a "
            "reference desktop host."
        ),
        epilog="Start with `webctx demo`. Run `webctx <command> --help` for each command.",
    )
    parser.add_argument("--version", action="version", version=f"webctx {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="show more log output on stderr (-vv for debug)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="<command>", required=True)
    for module in command_modules(names):
        module.add_parser(subparsers)
    return parser


class _ConsoleFilter(logging.Filter):
    """Other libraries' records reach the console only at ERROR and up unless -v was given."""

    def __init__(self, verbose: int) -> None:
        super().__init__()
        self.verbose = verbose

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("native_host") or self.verbose:
            return True
        return record.levelno >= logging.CRITICAL


def setup_logging(verbose: int) -> None:
    """Console handler on stderr (WARNING+, or INFO/DEBUG with -v/-vv) and a DEBUG log file."""
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    for handler in list(root.handlers):
        if getattr(handler, "_webctx", False):
            root.removeHandler(handler)
            handler.close()
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG)
    console.setFormatter(logging.Formatter("webctx: %(levelname)s %(name)s: %(message)s"))
    console.addFilter(_ConsoleFilter(verbose))
    console._webctx = True  # type: ignore[attr-defined]
    root.addHandler(console)
    try:
        # folder 0700, file 0600 whatever the umask, rotated files too
        file_handler = rotating_log_file(LOG_FILE_NAME, max_bytes=1 << 20, backup_count=3)
    except OSError:
        return  # no log file is better than no CLI
    # Their DEBUG records carry whole MCP messages, i.e. page content (STYLE.md "Logging").
    for chatty in ("mcp", "httpx", "httpx2", "httpcore", "anyio"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    file_handler.setLevel(logging.DEBUG)
    file_format = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
    file_handler.setFormatter(logging.Formatter(file_format))
    file_handler._webctx = True  # type: ignore[attr-defined]
    root.addHandler(file_handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run `webctx` with `argv` (default `sys.argv[1:]`); return the exit status (0 ok, 1 error,
    130 interrupted, at any moment, imports included; argparse exits 2 on a usage error)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("webctx: interrupted.", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    # Serving `webctx mcp`, the other commands' imports (0.1-0.3 s at load) would delay its first tools/list.
    parser = build_parser(("mcp",) if serving(list(sys.argv[1:] if argv is None else argv)) else COMMANDS)
    args = parser.parse_args(argv)
    setup_logging(args.verbose)
    as_json = bool(getattr(args, "json", False))
    handler: Callable[[argparse.Namespace], Result] = args.run
    log.debug("webctx %s %s", __version__, args.command)
    try:
        result = handler(args)
    except WebctxError as exc:
        log.debug("webctx %s failed (%s)", args.command, exc.code, exc_info=True)
        message = exc.message
        fix = str(getattr(exc, "fix", "") or "")
        print(terminal_safe(f"webctx: {message}"), file=sys.stderr)  # may quote a page's words
        if fix and fix not in message:
            print(terminal_safe(f"Fix: {fix}"), file=sys.stderr)
        return 1
    if not result.printed:
        emit(result, as_json)
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
