"""Shared fixtures: every test runs with its own HOME, XDG folders and providers folder.

Nothing a test does may touch the real user's files (STYLE.md, Tests): HOME, XDG_* and
CONTEXT_PROVIDERS_DIR point into the test's tmp_path, and a browser started by a test inherits
them (so does the native host the browser starts).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME, XDG_* and CONTEXT_PROVIDERS_DIR at folders under `tmp_path`; yield the home."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    providers = tmp_path / "providers"
    monkeypatch.setenv("CONTEXT_PROVIDERS_DIR", str(providers))
    yield home


@pytest.fixture(autouse=True)
def close_cli_log_handlers() -> Iterator[None]:
    """`webctx`'s `main()` attaches console and file handlers to the root logger; detach them
    after each test so no test writes into another's log file."""
    yield
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_webctx", False):
            root.removeHandler(handler)
            handler.close()
