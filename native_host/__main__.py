"""What the browser runs: `python -m native_host chrome-extension://<id>/` (design.md §4).

First claim stdout for frames: fd 1 is duplicated to a private fd that only `framing.py` writes,
and fd 1 itself is pointed at fd 2, so nothing else (a stray `print`, C code, uvicorn) can put
text into the native-messaging channel. Then log to a file and run `app.main()`.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from typing import TYPE_CHECKING, BinaryIO, Final

if TYPE_CHECKING:
    import logging

STARTED_AT = time.monotonic()

LOG_FILE_NAME = "native-host.log"
LOG_MAX_BYTES = 2 << 20
"""Rotate the log file above this size, in bytes (two old files are kept)."""


def claim_stdout() -> BinaryIO:
    """Move the real stdout to a private fd and return it as a binary stream; fd 1 becomes a copy
    of fd 2 and `sys.stdout` is `sys.stderr`."""
    frames_fd = os.dup(1)  # non-inheritable: child processes never see the channel
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(frames_fd, "wb")


def _rotating_log_file(path: os.PathLike[str]) -> logging.Handler:
    """A RotatingFileHandler for `path` (LOG_MAX_BYTES, two old files) whose `emit` formats each
    record once and makes one size check (seek to the end, tell) per line. The stock one formats
    every record twice and stats the path twice per line (bpo-45401: never roll over a file that
    is not a regular one; checked here once, at open), and bridge.py logs one line per request,
    in the `location` hot path (bench/README.md "Where location's time goes"). Raises OSError
    when it cannot open `path`. Its files, rolled-over ones included, are 0600 and never opened
    through a symlink (log_files.PrivateRotatingFileHandler)."""
    from native_host.log_files import PrivateRotatingFileHandler

    regular = not os.path.exists(path) or os.path.isfile(path)

    class RotatingLog(PrivateRotatingFileHandler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                line = self.format(record) + self.terminator
                if self.stream is None:
                    self.stream = self._open()
                self.stream.seek(0, 2)  # other hosts (other profiles) append to the same file
                if regular and self.stream.tell() + len(line) >= self.maxBytes:
                    self.doRollover()
                self.stream.write(line)
                self.flush()
            except Exception:
                self.handleError(record)

    return RotatingLog(path, maxBytes=LOG_MAX_BYTES, backupCount=2, encoding="utf-8")


def setup_logging() -> None:
    """DEBUG from `native_host` to `<log dir>/native-host.log` (rotated at 2 MiB), WARNING and up to
    stderr (the browser's stderr). Other libraries log INFO and up (`mcp` WARNING: its debug logs
    carry message bodies). Never the token or page content (STYLE.md "Logging")."""
    import logging
    import logging.handlers

    from native_host.log_files import private_log_folder

    root = logging.getLogger()
    root.setLevel(logging.INFO)
    stderr_handler = logging.StreamHandler(sys.stderr)
    stderr_handler.setLevel(logging.WARNING)
    stderr_handler.setFormatter(logging.Formatter("webctx native host: %(levelname)s %(name)s: %(message)s"))
    root.addHandler(stderr_handler)
    try:
        folder = private_log_folder()  # 0700 whatever the umask
        file_handler = _rotating_log_file(folder / LOG_FILE_NAME)
    except OSError as exc:
        logging.getLogger(__name__).warning("cannot open the log file (%s); logging to stderr only", exc)
    else:
        file_handler.setFormatter(
            logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s")
        )
        file_handler.setLevel(logging.DEBUG)
        root.addHandler(file_handler)
    logging.getLogger("native_host").setLevel(logging.DEBUG)
    logging.getLogger("mcp").setLevel(logging.WARNING)
    # websockets (the hand-off) logs two INFO lines per connection, refused ones included: a
    # token-less flood would rotate the log away; the guard's refusals are counted
    # in provider/http/refusal_log.py instead.
    logging.getLogger("websockets").setLevel(logging.WARNING)
    # The format names no source file, line, thread or multiprocessing process: skip finding them
    # for every record (`_srcfile = None` is the logging module's own switch for this: findCaller
    # walks the stack), about 10 µs of each request's log line (bench/README.md).
    logging._srcfile = None
    logging.logThreads = False
    logging.logMultiprocessing = False
    logging.captureWarnings(True)


NOT_FROM_BROWSER: Final = (
    "This is the webctx native messaging host, which the browser starts and talks to over a pipe; "
    "run `webctx` (e.g. `webctx demo` or `webctx --help`) instead."
)
"""What `python -m native_host` says when a person runs it (design.md §4: only the browser does)."""

NOT_FROM_BROWSER_EXIT: Final = 2
"""Exit status for a person running the host by hand (a usage error, like argparse's)."""


def started_by_browser(argv: list[str], stdin_fd: int = 0) -> bool:
    """True when this looks like the browser starting the host: no -h/--help in `argv` and stdin
    is a pipe or a socket (browsers use one or the other; a terminal, /dev/null or a file is a
    person, and asyncio cannot even watch a terminal or /dev/null)."""
    if any(arg in ("-h", "--help") for arg in argv):
        return False
    try:
        mode = os.fstat(stdin_fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _run() -> None:
    if not started_by_browser(sys.argv[1:]):
        print(NOT_FROM_BROWSER, file=sys.stderr)
        sys.exit(NOT_FROM_BROWSER_EXIT)
    frames_out = claim_stdout()
    # Answer the worker's hello before importing asyncio, pydantic, even logging (early_hello.py);
    # imported only now, so that nothing imported can write to the channel before it is claimed.
    from native_host.provider.port.early_hello import answer_first_hello

    early = answer_first_hello(sys.stdin.fileno(), frames_out)
    setup_logging()
    from native_host.provider import app

    code = app.main(sys.argv[1:], frames_out=frames_out, started_at=STARTED_AT, early=early)
    app.flush_and_exit(code, frames_out)


if __name__ == "__main__":
    _run()
