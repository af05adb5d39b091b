"""Fixtures shared by the provider's tests: `spawn` starts real `python -m native_host` processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from native_host.provider.http.refusal_log import REFUSALS
from tests.support.host_process import ORIGIN, Host


@pytest.fixture
async def spawn(tmp_path: Path) -> AsyncIterator[Callable[[], Any]]:
    """`host = await spawn()`: start `python -m native_host` (cwd and stderr file in tmp_path) as a
    Host. Every host is killed after the test, and the test fails if one wrote anything but frames
    to stdout."""
    hosts: list[Host] = []

    async def start() -> Host:
        spawned_at = time.monotonic()
        # stderr goes to a file: an unread pipe could fill up and block the host
        with (tmp_path / f"host-{len(hosts)}.stderr").open("wb") as stderr:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "native_host",
                ORIGIN,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=tmp_path,
                env=dict(os.environ),
            )
        host = Host(process, spawned_at)
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        if host.process.returncode is None:
            host.process.kill()
            await host.process.wait()
        await asyncio.wait({host._reader}, timeout=5)
        assert host.garbage == [], "the host wrote something other than frames to stdout"


@pytest.fixture(autouse=True)
def fresh_refusal_window() -> None:
    """Each test starts a new window of the process-wide refusal log (refusal_log.REFUSALS), so a
    test's refusals are logged one by one whatever an earlier test refused."""
    REFUSALS.flush()
