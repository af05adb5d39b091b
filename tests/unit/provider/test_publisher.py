"""publisher.py: one descriptor per browser process, a provider lock, takeover, self-repair (design.md §3)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from native_host.provider.descriptor_files import descriptor_name, write_descriptor
from native_host.provider.publisher import (
    DescriptorPublisher,
    ProviderLock,
    lock_name,
    names_instance,
    remove_stale_locks,
)
from tests.support.descriptors import make_descriptor
from tests.support.waiting import until

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the provider lock is flock (POSIX)")

INTERVAL_S = 0.02


def count_steps(publisher: DescriptorPublisher) -> list[int]:
    """A one-item list counting `publisher`'s watch checks from now on (the signal that it has looked)."""
    steps = [0]
    step = publisher._step

    def counted() -> None:
        step()
        steps[0] += 1

    publisher._step = counted  # type: ignore[method-assign]
    return steps


def test_the_lock_is_exclusive_and_released_on_close(tmp_path: Path) -> None:
    first, second = ProviderLock(tmp_path / ".x.lock"), ProviderLock(tmp_path / ".x.lock")
    assert first.try_acquire()
    assert not second.try_acquire()
    first.release()
    assert second.try_acquire()
    second.release(unlink=True)
    assert not (tmp_path / ".x.lock").exists()


def test_a_lock_whose_file_was_replaced_is_not_held(tmp_path: Path) -> None:
    lock = ProviderLock(tmp_path / ".x.lock")
    assert lock.try_acquire()
    (tmp_path / ".x.lock").unlink()
    assert not lock.held
    assert lock.try_acquire(), "a new file, a new lock"
    lock.release()


def test_the_lock_of_a_killed_process_is_free(tmp_path: Path) -> None:
    path = tmp_path / ".x.lock"
    script = (
        "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); sys.stdin.read()"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == "locked"
        assert not ProviderLock(path).try_acquire()
        child.kill()
        child.wait(timeout=10)
        lock = ProviderLock(path)
        assert lock.try_acquire()
        lock.release()


async def test_the_first_host_publishes_and_a_second_stands_by_until_it_withdraws(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    first = DescriptorPublisher(folder, make_descriptor(instance="first"), interval_s=INTERVAL_S)
    second = DescriptorPublisher(folder, make_descriptor(instance="second"), interval_s=INTERVAL_S)
    assert first.start() == "provider"
    assert second.start() == "standby"
    path = folder / descriptor_name("org.chromium.Chromium", 4242)
    steps = count_steps(second)
    await until(lambda: steps[0] >= 5, message="five checks by the standby")
    assert names_instance(path, "first"), "a standby never writes"
    assert first.withdraw()
    await until(lambda: names_instance(path, "second"))
    assert second.role == "provider"
    assert (folder / lock_name("org.chromium.Chromium", 4242)).exists()
    second.withdraw()
    assert not path.exists()
    assert not (folder / lock_name("org.chromium.Chromium", 4242)).exists()


async def test_withdraw_leaves_a_descriptor_that_names_another_instance(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    publisher = DescriptorPublisher(folder, make_descriptor(instance="old"), interval_s=60)
    publisher.start()
    newer = write_descriptor(folder, make_descriptor(instance="new"))  # e.g. a host started after a reload
    assert publisher.withdraw() is False
    assert json.loads(newer.read_text())["instance"] == "new"


async def test_a_deleted_folder_and_descriptor_are_written_again_with_their_modes(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    publisher = DescriptorPublisher(folder, make_descriptor(instance="me"), interval_s=INTERVAL_S)
    publisher.start()
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    target = folder / descriptor_name("org.chromium.Chromium", 4242)
    await until(lambda: names_instance(target, "me"))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert publisher.role == "provider"
    publisher.withdraw()


@pytest.mark.skipif(os.name != "posix", reason="modes are POSIX")
async def test_a_chmodded_descriptor_is_set_back_to_0600(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    publisher = DescriptorPublisher(folder, make_descriptor(instance="me"), interval_s=INTERVAL_S)
    publisher.start()
    target = folder / descriptor_name("org.chromium.Chromium", 4242)
    target.chmod(0o644)
    await until(lambda: stat.S_IMODE(target.stat().st_mode) == 0o600)
    assert names_instance(target, "me")
    publisher.withdraw()


async def test_different_browsers_each_get_their_provider(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    one = DescriptorPublisher(folder, make_descriptor(instance="a", pid=1), interval_s=60)
    two = DescriptorPublisher(folder, make_descriptor(instance="b", pid=2), interval_s=60)
    assert one.start() == two.start() == "provider"
    one.withdraw()
    two.withdraw()


def test_unheld_lock_files_are_removed_and_held_ones_kept(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    held = ProviderLock(folder / lock_name("org.chromium.Chromium", 1))
    assert held.try_acquire()
    orphan = folder / lock_name("org.chromium.Chromium", 2)
    orphan.write_text("")
    orphan.chmod(0o600)
    assert remove_stale_locks(folder) == [orphan]
    assert held.held and not orphan.exists()
    held.release(unlink=True)
