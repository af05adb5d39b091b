"""log_files.py: every log folder and file webctx creates is private under `umask 000`:
the folder and the parents we create 0700, the files 0600, rotated files too, never
through a symlink; for the CLI's cli.log, the bridge's mcp.log and the demo's browser log. (The
native host's own log: tests/unit/provider/test_log_modes.py, through the real process.)"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import native_host.__main__ as host_main
from native_host import log_files, paths
from native_host.cli import main as cli_main
from native_host.cli import mcp as cli_mcp
from native_host.demo import runner

pytestmark = pytest.mark.skipif(os.name != "posix", reason="modes and umask are POSIX")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def umask_000() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def root_handlers() -> Iterator[None]:
    """Detach and close whatever handlers the test added to the root logger."""
    root = logging.getLogger()
    before = list(root.handlers)
    yield
    for handler in list(root.handlers):
        if handler not in before:
            root.removeHandler(handler)
            handler.close()


def test_the_folder_and_the_parents_we_make_are_0700_under_umask_000(tmp_path: Path, umask_000: None) -> None:
    existing = tmp_path / "existing"
    existing.mkdir(mode=0o755)
    os.chmod(existing, 0o755)
    folder = existing / "state" / "webctx" / "log"
    log_files.make_private_folder(folder)
    assert [mode(p) for p in (existing / "state", existing / "state" / "webctx", folder)] == [0o700] * 3
    assert mode(existing) == 0o755  # a parent we did not make is left alone
    os.chmod(folder, 0o755)  # an older webctx made it so
    log_files.make_private_folder(folder)
    assert mode(folder) == 0o700


@pytest.mark.parametrize("which", ["PrivateRotatingFileHandler", "the native host's"])
def test_rotation_keeps_every_file_0600_under_umask_000(
    tmp_path: Path, umask_000: None, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    path = folder / "x.log"
    path.write_text("an old 0666 file\n")
    os.chmod(path, 0o666)
    if which == "PrivateRotatingFileHandler":
        handler: logging.Handler = log_files.PrivateRotatingFileHandler(path, maxBytes=100, backupCount=2)
    else:
        monkeypatch.setattr(host_main, "LOG_MAX_BYTES", 100)
        handler = host_main._rotating_log_file(path)
    try:
        for n in range(20):
            handler.handle(logging.makeLogRecord({"msg": "line %d of the log, long enough", "args": (n,)}))
    finally:
        handler.close()
    files = sorted(folder.iterdir())
    assert [p.name for p in files] == ["x.log", "x.log.1", "x.log.2"]
    assert [mode(p) for p in files] == [0o600] * 3


def test_a_symlink_at_a_log_files_name_is_never_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("")
    (tmp_path / "x.log").symlink_to(target)
    with pytest.raises(OSError):
        log_files.PrivateRotatingFileHandler(tmp_path / "x.log", maxBytes=100, backupCount=1)
    with pytest.raises(OSError):
        log_files.open_private_binary(tmp_path / "x.log")
    assert target.read_text() == ""


def test_cli_log_and_mcp_log_are_private_under_umask_000(umask_000: None, root_handlers: None) -> None:
    cli_main.setup_logging(0)
    logging.getLogger("native_host.cli").info("a line")
    cli_mcp._log_to_file()
    logging.getLogger("native_host.cli.mcp").info("a line")
    folder = paths.log_dir()
    assert mode(folder) == 0o700
    assert mode(folder.parent) == 0o700  # ~/.local/state/webctx, made by us
    assert mode(folder / cli_main.LOG_FILE_NAME) == 0o600
    assert mode(folder / cli_mcp.LOG_FILE_NAME) == 0o600


def test_the_demo_browser_log_is_private_under_umask_000(umask_000: None) -> None:
    """demo/runner.py opens the browser's output file with open_private_binary in the private folder."""
    path = log_files.private_log_folder() / runner.BROWSER_LOG_NAME
    with contextlib.closing(log_files.open_private_binary(path)) as handle:
        handle.write(b"browser output\n")
    assert mode(path.parent) == 0o700 and mode(path) == 0o600
