"""What the browser runs: `python -m native_host chrome-extension://<id>/` (SPEC §4).

First claim stdout for frames: fd 1 is duplicated to a private fd that only `framing.py` writes,
and fd 1 itself is pointed at fd 2, so nothing else (a stray `print`, C code, uvicorn) can put
text into the native-messaging channel. Then log to a file and run `app.main()`.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from typing import BinaryIO, Final

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


def setup_logging() -> None:
    """DEBUG from `native_host` to `<log dir>/native-host.log` (rotated at 2 MiB), WARNING and up to
    stderr (the browser's stderr). Other libraries log INFO and up (`mcp` WARNING: its debug logs
    carry message bodies). Never the token or page content (STYLE.md "Logging")."""
    import logging
    import logging.handlers

    from native_host.paths import log_dir

    root = logging.getLogger()
    root.setLevel(logging.INFO)
    stderr_handler = logging.StreamHandler(sys.stderr)
    stderr_handler.setLevel(logging.WARNING)
    stderr_handler.setFormatter(logging.Formatter("webctx native host: %(levelname)s %(name)s: %(message)s"))
    root.addHandler(stderr_handler)
    try:
        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder.chmod(0o700)  # an older webctx may have made it 0755
        file_handler = logging.handlers.RotatingFileHandler(
            folder / LOG_FILE_NAME, maxBytes=LOG_MAX_BYTES, backupCount=2, encoding="utf-8"
        )
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
    logging.captureWarnings(True)


NOT_FROM_BROWSER: Final = (
    "This is the webctx native messaging host, which the browser starts and talks to over a pipe; "
    "run `webctx` (e.g. `webctx demo` or `webctx --help`) instead."
)
"""What `python -m native_host` says when a person runs it (SPEC §4: only the browser does)."""

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
    from native_host.early_hello import answer_first_hello

    early = answer_first_hello(sys.stdin.fileno(), frames_out)
    setup_logging()
    from native_host import app

    code = app.main(sys.argv[1:], frames_out=frames_out, started_at=STARTED_AT, early=early)
    app.flush_and_exit(code, frames_out)


if __name__ == "__main__":
    _run()
