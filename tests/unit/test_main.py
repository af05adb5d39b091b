"""native_host/__main__.py, what the browser runs: stdout claimed for frames before anything else
can write to it (design.md §4), and the log file handler (`_rotating_log_file`): one line per record,
formatted once, rolled over at LOG_MAX_BYTES like the stock RotatingFileHandler."""

from __future__ import annotations

import logging
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import native_host.__main__ as host_main


def test_appends_formats_once_and_rolls_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_main, "LOG_MAX_BYTES", 200)
    path = tmp_path / "native-host.log"
    handler = host_main._rotating_log_file(path)
    formats: list[str] = []

    class Counting(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            formats.append(record.getMessage())
            return super().format(record)

    handler.setFormatter(Counting("%(levelname)s %(message)s"))
    try:
        for n in range(12):
            fields = {"msg": "request h-%d answered", "args": (n,), "levelno": 10, "levelname": "DEBUG"}
            handler.handle(logging.makeLogRecord(fields))
    finally:
        handler.close()
    assert len(formats) == 12  # once per record (the stock handler formats twice)
    lines = [line for p in (path.with_name("native-host.log.1"), path) for line in p.read_text().splitlines()]
    assert lines[-1] == "DEBUG request h-11 answered"
    assert all(p.stat().st_size < 200 for p in (path, path.with_name("native-host.log.1")))
    assert not path.with_name("native-host.log.3").exists()  # two old files kept


@pytest.mark.skipif(os.name != "posix", reason="checks fd 1 redirection on POSIX only")
def test_claimed_stdout_carries_only_frames(tmp_path: Path) -> None:
    """A stray print, a C-level write to fd 1 and a child process all land on stderr."""
    script = (
        "import os, subprocess, sys\n"
        "from native_host.__main__ import claim_stdout\n"
        "out = claim_stdout()\n"
        "print('stray print')\n"
        "os.write(1, b'raw fd 1 write\\n')\n"
        "subprocess.run([sys.executable, '-c', 'print(\"child output\")'], check=True)\n"
        "out.write(b'\\x02\\x00\\x00\\x00{}'); out.flush()\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, timeout=30, cwd=tmp_path, check=True
    )
    assert completed.stdout == struct.pack("=I", 2) + b"{}"
    assert b"stray print" in completed.stderr
    assert b"raw fd 1 write" in completed.stderr
    assert b"child output" in completed.stderr
