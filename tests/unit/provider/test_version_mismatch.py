"""A protocol or webctx version mismatch between the extension and the native host
is named, with the side to update, by protocol/version.py's `version_mismatch`, and the real host
logs it whichever path answered the hello (early_hello.py before the slow imports, or app.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from native_host import __version__
from native_host.protocol.version import (
    PROTOCOL_VERSION,
    UPDATE_EXTENSION_FIX,
    UPDATE_HOST_FIX,
    version_mismatch,
)
from tests.support.host_process import HELLO, Host, log_text, ready_descriptor, wait_until

NEWER = "9.9.9"
"""A webctx version newer than any this repository ships."""


def test_the_same_versions_are_no_mismatch() -> None:
    assert version_mismatch(PROTOCOL_VERSION, __version__) is None
    assert version_mismatch(PROTOCOL_VERSION, None) is None  # an extension that does not say its version
    patch = PROTOCOL_VERSION.rsplit(".", 1)[0] + ".99"  # a patch only adds ignorable things
    assert version_mismatch(patch, __version__) is None


@pytest.mark.parametrize(
    ("extension_protocol", "extension_version", "host_protocol", "host_version", "update"),
    [
        ("0.2.0", "0.1.0", "0.3.0", "0.2.0", "extension"),  # an older extension
        ("0.3.0", "0.2.0", "0.2.0", "0.1.0", "native host"),  # an older host
        ("0.2.0", "0.1.0", "0.2.0", "0.1.1", "extension"),  # same protocol, another release
        ("0.2.0", "0.10.0", "0.2.0", "0.9.0", "native host"),  # numbers, not text, are compared
        ("0.1.0", None, "0.2.0", "0.1.0", "extension"),  # no extension version: by protocol
    ],
)
def test_a_mismatch_names_both_sides_and_the_older_one_to_update(
    extension_protocol: str, extension_version: str | None, host_protocol: str, host_version: str, update: str
) -> None:
    found = version_mismatch(
        extension_protocol, extension_version, host_protocol=host_protocol, host_version=host_version
    )
    assert found is not None and found.update == update
    assert f"webctx {extension_version or '?'} (protocol {extension_protocol})" in found.message
    assert f"webctx {host_version} (protocol {host_protocol})" in found.message
    assert (UPDATE_EXTENSION_FIX if update == "extension" else UPDATE_HOST_FIX) in found.message


MISMATCHING = {
    **HELLO,
    "protocol": "0.9.0",
    "extension": {"id": "abcdefghijklmnopabcdefghijklmnop", "version": NEWER},
}
"""A hello from a newer extension: another protocol and another webctx version."""


def mismatch_lines() -> list[str]:
    return [line for line in log_text().splitlines() if "version mismatch" in line]


async def test_the_early_hello_path_logs_the_mismatch(spawn: Callable[[], Any]) -> None:
    """The first hello is answered by early_hello.py; app.py used to skip the protocol warning for
    it. The log names both versions and says to update the native host."""
    host: Host = await spawn()
    result = await host.hello(**MISMATCHING)
    assert result["protocol"] == PROTOCOL_VERSION and result["version"] == __version__
    await wait_until(lambda: bool(mismatch_lines()), what="the mismatch warning")
    assert "(early)" in log_text()
    [line] = mismatch_lines()
    assert f"webctx {NEWER} (protocol 0.9.0)" in line
    assert f"webctx {__version__} (protocol {PROTOCOL_VERSION})" in line
    assert "update the native host" in line


async def test_a_later_hello_logs_the_mismatch_too(spawn: Callable[[], Any]) -> None:
    """A matching first hello (early path) logs nothing; a later mismatching one (app.py) does."""
    host: Host = await spawn()
    await host.hello()
    await ready_descriptor(host)  # the slow imports are done: the next hello is app.py's
    assert mismatch_lines() == []
    await host.hello(**{**MISMATCHING, "id": "w-2"})
    await wait_until(lambda: bool(mismatch_lines()), what="the mismatch warning")
    [line] = mismatch_lines()
    assert f"webctx {NEWER} (protocol 0.9.0)" in line and "update the native host" in line
