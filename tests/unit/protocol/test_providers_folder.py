"""The providers-folder and descriptor-file rules both sides share (protocol/providers_folder.py,
design.md §3): one table of modes and what each one breaks, read by the provider (which refuses every
problem) and the reference host (which refuses what others could write, warns about what they can
read). The provider's and host's own words are tested in tests/unit/provider and tests/unit/host."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from native_host.errors import ProvidersFolderError
from native_host.protocol.providers_folder import (
    Problem,
    check_publishing_names,
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


@pytest.mark.skipif(os.name != "posix", reason="symlinks and FIFOs")
def test_only_a_non_file_at_this_browsers_descriptor_or_lock_name_is_refused(tmp_path: Path) -> None:
    """What `hello` refuses before saying `listening: true` (provider/port/hello.py)."""
    folder = tmp_path / "providers"
    folder.mkdir(mode=0o700)
    (folder / "org.chromium.Chromium-41.json").write_text("{}")  # a stale descriptor: fine
    (folder / ".org.chromium.Chromium-41.lock").write_text("")  # a stale lock: fine
    (folder / "com.google.Chrome-99.json").mkdir()  # another browser's name
    (folder / ".com.google.Chrome-99.lock").symlink_to(tmp_path)
    (folder / "notes-41.txt").mkdir()  # not a descriptor or lock name
    check_publishing_names(folder, {41, 1234})
    check_publishing_names(tmp_path / "missing", {41})
    for name in ("any.bundle.Id-41.json", ".any.bundle.Id-41.lock"):
        os.mkfifo(folder / name)
        with pytest.raises(ProvidersFolderError, match="restart the browser"):
            check_publishing_names(folder, {41})
        os.unlink(folder / name)
    directory = r"not a file at com\.google\.Chrome-99\.json, where this browser's descriptor goes"
    with pytest.raises(ProvidersFolderError, match=directory):
        check_publishing_names(folder, {99})
    (folder / "com.google.Chrome-99.json").rmdir()
    symlink = r"a symlink at \.com\.google\.Chrome-99\.lock, where this browser's provider lock goes"
    with pytest.raises(ProvidersFolderError, match=symlink):
        check_publishing_names(folder, {99})
