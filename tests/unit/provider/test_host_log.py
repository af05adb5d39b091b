"""The native host's log file handler (native_host/__main__.py `_rotating_log_file`): one line per
record, formatted once, rolled over at LOG_MAX_BYTES like the stock RotatingFileHandler."""

from __future__ import annotations

import logging
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
