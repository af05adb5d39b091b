"""The providers-folder and descriptor-file rules both sides share (protocol/providers_folder.py,
SPEC §3): one table of modes and what each one breaks, read by the provider (which refuses every
problem) and the reference host (which refuses what others could write, warns about what they can
read). The provider's and host's own words are tested in tests/unit/provider and tests/unit/host."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from native_host.protocol.providers_folder import (
    Problem,
    file_problem,
    folder_problem,
    is_own_regular_file,
)

posix_only = pytest.mark.skipif(os.name != "posix", reason="owner and mode rules are POSIX-only")


@posix_only
@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        (0o700, None),
        (0o500, None),
        (0o750, "others_can_read"),
        (0o704, "others_can_read"),
        (0o770, "others_can_write"),
        (0o702, "others_can_write"),
    ],
)
def test_a_folders_mode_gives_its_first_problem(tmp_path: Path, mode: int, problem: Problem | None) -> None:
    folder = tmp_path / "providers"
    folder.mkdir()
    folder.chmod(mode)
    try:
        assert folder_problem(folder.lstat()) == problem
    finally:
        folder.chmod(0o700)


@posix_only
@pytest.mark.parametrize(
    ("mode", "problem", "own_regular"),
    [
        (0o600, None, True),
        (0o400, None, True),
        (0o640, "others_can_read", True),
        (0o644, "others_can_read", True),
        (0o620, "others_can_write", True),
        (0o666, "others_can_write", True),
    ],
)
def test_a_files_mode_gives_its_first_problem(
    tmp_path: Path, mode: int, problem: Problem | None, own_regular: bool
) -> None:
    path = tmp_path / "org.example.Browser-1.json"
    path.write_text("{}")
    path.chmod(mode)
    assert file_problem(path.lstat()) == problem
    assert is_own_regular_file(path.lstat()) is own_regular


def test_symlinks_and_wrong_types_come_before_modes(tmp_path: Path) -> None:
    folder = tmp_path / "real"
    folder.mkdir(mode=0o777)
    (tmp_path / "link").symlink_to(folder)
    path = folder / "a.json"
    path.write_text("{}")
    (tmp_path / "file-link").symlink_to(path)
    assert folder_problem((tmp_path / "link").lstat()) == "symlink"
    assert folder_problem(path.lstat()) == "wrong_type"
    assert file_problem((tmp_path / "file-link").lstat()) == "symlink"
    assert file_problem(folder.lstat()) == "wrong_type"
    assert not is_own_regular_file((tmp_path / "file-link").lstat())
    assert not is_own_regular_file(folder.lstat())
