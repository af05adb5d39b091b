"""The OS facts the reference host reads (native_host/host/processes.py), against a real socket
and real processes.

The one listener check: the reference host's `check_descriptor`, the conformance kit's
`descriptor.listener_*` rules and the demo all ask `listening_sockets` / `is_same_or_descendant`
(concepts page, "Security"; design.md §7). The bundle id a process is expected to publish comes from its
executable (`expected_bundle_id`).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from native_host import host as host_client
from native_host.host import UNKNOWN_PID, is_same_or_descendant, listener_pids, listening_sockets
from tests.support.processes import sleeper


@pytest.fixture
def listening_port() -> Iterator[int]:
    """A TCP port this process listens on, on 127.0.0.1 only."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_a_listening_socket_is_found_with_its_address_and_pid(listening_port: int) -> None:
    assert [(s.address, s.pid) for s in listening_sockets(listening_port)] == [("127.0.0.1", os.getpid())]
    assert listener_pids(listening_port) == {os.getpid()}


def test_a_port_nobody_listens_on_has_no_listeners() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: the port is ours and quiet
        port = sock.getsockname()[1]
        assert listening_sockets(port) == [] and listener_pids(port) == set()


def test_same_or_descendant_holds_for_the_process_and_its_children_only() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert is_same_or_descendant(os.getpid(), os.getpid())
        assert is_same_or_descendant(child.pid, os.getpid())
        assert not is_same_or_descendant(os.getpid(), child.pid)  # a parent is not a descendant
        assert not is_same_or_descendant(UNKNOWN_PID, os.getpid())
    finally:
        child.kill()
        child.wait()
    assert not is_same_or_descendant(child.pid, os.getpid())  # gone (reaped): never raises


def test_the_bundle_id_of_this_process_is_not_a_browser_s() -> None:
    assert host_client.expected_bundle_id(psutil.Process()) is None


def test_a_chromium_process_is_expected_to_publish_the_chromium_bundle_id(tmp_path: Path) -> None:
    sleep = shutil.which("sleep")
    if sleep is None:
        pytest.skip("no `sleep` binary to pose as a browser")
    exe = tmp_path / "chromium"
    shutil.copy(sleep, exe)
    with sleeper(30, program=exe) as proc:
        assert host_client.expected_bundle_id(psutil.Process(proc.pid)) == "org.chromium.Chromium"
