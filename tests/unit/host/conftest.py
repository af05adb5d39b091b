"""Fixtures shared by the reference host's tests (native_host/host/)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def providers_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private providers folder, created 0700 (tests/conftest.py names it but does not create it)."""
    folder = tmp_path / "providers"
    folder.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("CONTEXT_PROVIDERS_DIR", str(folder))
    return folder
