"""serving.py in the real `python -m native_host` process (tests/support/host_process.py): once the
hello says it may serve, the descriptor it publishes (fields, modes, the listening ports) and the
`provider.ready` event naming its port (design.md §3).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from typing import Any

import psutil
import pytest

from native_host import __version__
from tests.support.host_process import (
    Host,
    descriptors,
    log_text,
    providers_dir,
    ready_descriptor,
    wait_until,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes and signals")


async def test_descriptor_has_the_right_fields_and_modes(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    result = await host.hello()
    descriptor = await ready_descriptor(host)
    [path] = descriptors()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(providers_dir().stat().st_mode) == 0o700
    assert set(descriptor) == {
        "protocol",
        "bundleId",
        "name",
        "version",
        "pid",
        "instance",
        "endpoint",
        "token",
        "listenerPid",
        "handoff",  # our addition: where this browser's other profiles' hosts connect (design.md §3)
        "hostVersion",  # our additions: what runs on both sides, for `webctx doctor`
        "extensionVersion",
        "extensionProtocol",
    }
    assert descriptor["protocol"] == "0.2.0"
    # our python is no browser: the hello's browser name picks the table row
    assert (descriptor["bundleId"], descriptor["name"]) == ("org.chromium.Chromium", "Chromium")
    assert descriptor["version"] == "156.0.8078.114"
    assert descriptor["instance"] == result["instance"]
    assert descriptor["listenerPid"] == host.process.pid
    assert (descriptor["hostVersion"], descriptor["extensionVersion"]) == (__version__, "0.1.0")
    assert descriptor["extensionProtocol"] == "0.2.0"
    me = psutil.Process()
    assert descriptor["pid"] in {me.pid, *(parent.pid for parent in me.parents())}
    assert path.name == f"org.chromium.Chromium-{descriptor['pid']}.json"
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp/[A-Za-z0-9_-]{22}", descriptor["endpoint"])
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", descriptor["token"])
    assert re.fullmatch(r"ws://127\.0\.0\.1:\d+/handoff", descriptor["handoff"])
    listening = [c for c in psutil.Process(host.process.pid).net_connections("tcp") if c.status == "LISTEN"]
    urls = (descriptor["endpoint"], descriptor["handoff"])
    assert sorted((c.laddr.ip, c.laddr.port) for c in listening) == sorted(
        ("127.0.0.1", int(url.split(":")[2].split("/")[0])) for url in urls
    )
    host.close_stdin()
    assert await host.wait_exit(5) == 0
    assert descriptor["token"] not in log_text()


async def test_provider_ready_names_the_descriptor_s_port_and_never_the_token(
    spawn: Callable[[], Any],
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    await wait_until(lambda: bool(host.provider_ready), what="provider.ready")
    port = int(descriptor["endpoint"].split(":")[2].split("/")[0])
    assert host.provider_ready == [{"type": "provider.ready", "port": port}]
