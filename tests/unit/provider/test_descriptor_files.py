"""descriptor_files.py: providers-folder checks, 0600 atomic write, removal, stale cleanup (design.md §3)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from native_host.errors import ProvidersFolderError
from native_host.provider import descriptor_files as descriptor_module
from native_host.provider.descriptor_files import (
    descriptor_name,
    ensure_providers_folder,
    reassert_file_mode,
    remove_descriptor,
    remove_stale_descriptors,
    write_descriptor,
)
from tests.support.descriptors import make_descriptor
from tests.support.processes import reaped_pid, sleeper

pytestmark = pytest.mark.skipif(os.name != "posix", reason="owner and mode checks are POSIX-only")


def test_missing_folder_is_created_0700_despite_the_umask(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "context-providers"
    old_umask = os.umask(0o022)
    try:
        path = write_descriptor(folder, make_descriptor())
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert path == folder / "org.chromium.Chromium-4242.json"


def test_descriptor_is_0600_with_the_wire_fields(tmp_path: Path) -> None:
    old_umask = os.umask(0)
    try:
        path = write_descriptor(tmp_path / "providers", make_descriptor())
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    assert data == {
        "protocol": "0.2.0",
        "bundleId": "org.chromium.Chromium",
        "name": "Chromium",
        "version": "156.0.8078.114",
        "pid": 4242,
        "instance": "k3f9x2",
        "endpoint": "http://127.0.0.1:53817/mcp/Zx8",
        "token": "secret-token",
        "listenerPid": os.getpid(),
    }


def test_descriptor_name_is_bundle_id_dash_pid() -> None:
    assert descriptor_name("com.google.Chrome", 77) == "com.google.Chrome-77.json"


def assert_refused_and_nothing_written(folder: Path, match: str) -> None:
    before = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else None
    with pytest.raises(ProvidersFolderError, match=match):
        write_descriptor(folder, make_descriptor())
    after = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else None
    assert before == after


def test_a_symlinked_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "providers"
    link.symlink_to(real)
    assert_refused_and_nothing_written(link, "symlink")
    assert list(real.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_another_users_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    assert_refused_and_nothing_written(folder, "belongs to user id 65534")


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o701, 0o770, 0o777])
def test_a_group_or_world_accessible_folder_is_refused(tmp_path: Path, mode: int) -> None:
    folder = tmp_path / "providers"
    folder.mkdir()
    os.chmod(folder, mode)
    assert_refused_and_nothing_written(folder, "accessible to other users")
    assert stat.S_IMODE(folder.stat().st_mode) == mode  # not "fixed" behind the user's back


def test_a_file_in_place_of_the_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    folder.write_text("not a folder")
    with pytest.raises(ProvidersFolderError, match="not a folder"):
        write_descriptor(folder, make_descriptor())


def test_write_is_atomic_a_failed_rename_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "providers"
    path = write_descriptor(folder, make_descriptor())
    original = path.read_bytes()

    def failing_replace(src: str | Path, dst: str | Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(descriptor_module.os, "replace", failing_replace)
    changed = make_descriptor().model_copy(update={"instance": "other"})
    with pytest.raises(OSError, match="No space"):
        write_descriptor(folder, changed)
    assert path.read_bytes() == original
    assert sorted(p.name for p in folder.iterdir()) == [path.name]


def test_write_replaces_through_a_temp_file_in_the_same_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "providers"
    seen: list[tuple[Path, Path]] = []
    real_replace = os.replace

    def spy(src: str | Path, dst: str | Path) -> None:
        seen.append((Path(src), Path(dst)))
        assert stat.S_IMODE(os.stat(src).st_mode) == 0o600
        real_replace(src, dst)

    monkeypatch.setattr(descriptor_module.os, "replace", spy)
    path = write_descriptor(folder, make_descriptor())
    [(src, dst)] = seen
    assert dst == path and src.parent == folder and src.name.startswith(".")


def test_remove_descriptor_is_idempotent(tmp_path: Path) -> None:
    path = write_descriptor(tmp_path / "providers", make_descriptor())
    assert remove_descriptor(path) is True
    assert remove_descriptor(path) is False
    assert not path.exists()


def test_stale_cleanup_removes_only_parseable_descriptors_with_a_dead_listener(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    alive = write_descriptor(folder, make_descriptor(pid=1))
    stale = write_descriptor(folder, make_descriptor(pid=2, listener_pid=reaped_pid()))
    no_listener = folder / "com.example.App-3.json"
    no_listener.write_text(json.dumps(make_descriptor(pid=3).to_wire() | {"listenerPid": None}))
    unparsable = folder / "garbage-4.json"
    unparsable.write_text("{not json")
    other = folder / "notes.txt"
    other.write_text("hello")
    removed = remove_stale_descriptors(folder)
    assert removed == [stale]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [alive.name, no_listener.name, unparsable.name, other.name]
    )


def test_stale_cleanup_catches_a_reused_pid(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    path = write_descriptor(folder, make_descriptor(listener_pid=1))  # pid 1 started long before…
    os.utime(path, (0, 0))  # …but this descriptor claims to be from 1970: pid 1 is a reuse
    with sleeper(30) as other_pid:
        fresh = write_descriptor(folder, make_descriptor(pid=9, listener_pid=other_pid.pid))
        assert remove_stale_descriptors(folder) == [path]
        assert fresh.exists()


def test_stale_cleanup_does_nothing_for_a_missing_or_unsafe_folder(tmp_path: Path) -> None:
    assert remove_stale_descriptors(tmp_path / "missing") == []
    assert not (tmp_path / "missing").exists()
    folder = tmp_path / "open"
    folder.mkdir()
    stale = folder / "x-1.json"
    stale.write_text(json.dumps(make_descriptor(listener_pid=reaped_pid()).to_wire()))
    os.chmod(folder, 0o777)
    assert remove_stale_descriptors(folder) == []
    assert stale.exists()


def test_stale_cleanup_leaves_symlinks_alone(tmp_path: Path) -> None:
    folder = ensure_providers_folder(tmp_path / "providers")
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps(make_descriptor(listener_pid=reaped_pid()).to_wire()))
    (folder / "link-1.json").symlink_to(target)
    assert remove_stale_descriptors(folder) == []
    assert target.exists()


@pytest.mark.skipif(os.name != "posix", reason="modes are POSIX")
def test_reassert_sets_a_chmodded_descriptor_back_to_0600_and_leaves_links_alone(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text("{}")
    path.chmod(0o644)
    assert reassert_file_mode(path) is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert reassert_file_mode(path) is False
    link = tmp_path / "l.json"
    link.symlink_to(path)
    path.chmod(0o644)
    assert reassert_file_mode(link) is False
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert reassert_file_mode(tmp_path / "missing.json") is False
