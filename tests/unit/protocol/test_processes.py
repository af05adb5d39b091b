"""One liveness rule for every reader of a descriptor: a zombie is dead (protocol/processes.py).

Regression: the provider's stale-descriptor cleanup treated a zombie listener as
alive while the reference host treated it as dead, so on a machine whose PID 1 does not reap
(a container) a SIGKILLed native host's descriptor was never removed. These tests make a real
zombie (a child that exited and was not waited for), so they fail on any machine without the rule.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from native_host.errors import ProviderRejected
from native_host.host import check_descriptor
from native_host.install.doctor import check_stale
from native_host.protocol.processes import process_alive
from native_host.provider.descriptor_files import (
    ensure_providers_folder,
    remove_stale_descriptors,
    write_descriptor,
)
from tests.support.descriptors import make_descriptor
from tests.support.waiting import wait_until


@pytest.fixture
def zombie_pid() -> Iterator[int]:
    """The pid of a real zombie: our child, exited, not yet waited for. Reaped after the test."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    wait_until(lambda: psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE,
               message="the child to become a zombie")
    try:
        yield child.pid
    finally:
        child.wait()


def test_a_zombie_is_not_alive(zombie_pid: int) -> None:
    assert psutil.pid_exists(zombie_pid)  # the OS still lists it: the trap this rule closes
    assert not process_alive(zombie_pid)


def test_a_running_process_is_alive_unless_it_started_after_the_given_time() -> None:
    me = psutil.Process().pid
    assert process_alive(me)
    assert not process_alive(me, started_before=psutil.Process().create_time() - 60)


def test_stale_cleanup_removes_a_descriptor_whose_listener_is_a_zombie(
    tmp_path: Path, zombie_pid: int
) -> None:
    folder = ensure_providers_folder(tmp_path / "providers")
    path = write_descriptor(folder, make_descriptor(pid=zombie_pid, listener_pid=zombie_pid))
    assert remove_stale_descriptors(folder) == [path]
    assert not path.exists()


def test_doctor_calls_a_zombie_listeners_descriptor_stale(tmp_path: Path, zombie_pid: int) -> None:
    folder = ensure_providers_folder(tmp_path / "providers")
    write_descriptor(folder, make_descriptor(pid=zombie_pid, listener_pid=zombie_pid))
    assert not check_stale(folder).ok


def test_the_reference_host_rejects_a_descriptor_naming_a_zombie(zombie_pid: int) -> None:
    with pytest.raises(ProviderRejected) as caught:
        check_descriptor(make_descriptor(pid=zombie_pid, listener_pid=zombie_pid))
    assert caught.value.reason == "process_gone"
