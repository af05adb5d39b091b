"""hello.py: the one `hello` reply of both paths, equal to the typed HelloReply (design.md §3, §4); and
through the real `python -m native_host` (tests/support/host_process.py), an unsafe providers
folder said in the reply instead of listening."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from native_host import __version__
from native_host.protocol.native import HelloReply
from native_host.protocol.version import PROTOCOL_VERSION
from native_host.provider.port.hello import hello_result, mint_instance
from tests.support.host_process import Host, descriptors, providers_dir, wait_until

INSTANCE = "Zm9vYmFyYmF6cXV4cXV1eA"


def unsafe_providers_folder() -> Path:
    folder = Path(os.environ["CONTEXT_PROVIDERS_DIR"])
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    return folder


@pytest.mark.parametrize("enabled", [True, False])
def test_the_reply_is_the_hello_reply_model_on_the_wire(enabled: bool) -> None:
    result = hello_result(INSTANCE, enabled=enabled)
    wanted = {"instance": INSTANCE, "protocol": PROTOCOL_VERSION, "version": __version__}
    wanted["listening"] = enabled
    assert result == wanted
    assert HelloReply(instance=INSTANCE, listening=enabled).to_wire() == result
    assert HelloReply.model_validate(result).to_wire() == result


@pytest.mark.skipif(os.name != "posix", reason="the folder's mode check is POSIX-only")
def test_an_unsafe_providers_folder_says_not_listening_with_the_problem() -> None:
    unsafe_providers_folder()
    result = hello_result(INSTANCE, enabled=True)
    assert result["listening"] is False and "chmod 700" in result["problem"]
    assert HelloReply(instance=INSTANCE, listening=False, problem=result["problem"]).to_wire() == result


@pytest.mark.skipif(os.name != "posix", reason="the folder's mode check is POSIX-only")
def test_the_folder_is_not_checked_when_switched_off_or_told_not_to() -> None:
    unsafe_providers_folder()
    assert "problem" not in hello_result(INSTANCE, enabled=False)
    assert hello_result(INSTANCE, enabled=True, check_folder=False)["listening"] is True


def test_an_instance_is_16_random_bytes_in_url_safe_base64() -> None:
    first, second = mint_instance(), mint_instance()
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", first) and first != second


def test_the_early_path_imports_the_standard_library_only() -> None:
    """early_hello.py and hello.py answer before pydantic, mcp and asyncio load (design.md §4 budget)."""
    code = (
        "import sys\n"
        "import native_host.provider.port.early_hello\n"
        "print(sorted(m for m in ('pydantic', 'mcp', 'asyncio', 'platformdirs') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes and signals")
@pytest.mark.parametrize("unsafe", ["mode 0755", "symlink", "another user's"])
async def test_an_unsafe_providers_folder_is_refused_in_the_hello_reply_and_nothing_is_written(
    spawn: Callable[[], Any], tmp_path: Path, unsafe: str
) -> None:
    folder = providers_dir()
    if unsafe == "symlink":
        real = tmp_path / "elsewhere"
        real.mkdir(mode=0o700)
        folder.symlink_to(real, target_is_directory=True)
        looked_at = real
    else:
        folder.mkdir(mode=0o700)
        looked_at = folder
        if unsafe == "mode 0755":
            os.chmod(folder, 0o755)
        else:
            os.chown(folder, 65534, 65534)
    host: Host = await spawn()
    result = await host.hello()
    # It says why instead of listening, and stays connected (no exit, so no restart loop).
    assert result["listening"] is False
    assert "providers folder" in result["problem"] and "restart the browser" in result["problem"]
    assert psutil.Process(host.process.pid).net_connections("tcp") == []
    host.close_stdin()
    assert await host.wait_exit(5) == 0
    assert list(looked_at.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes and signals")
@pytest.mark.parametrize("planted", ["directory", "symlink"])
@pytest.mark.parametrize("at", ["descriptor", "provider lock"])
async def test_a_directory_or_symlink_at_the_descriptor_or_lock_name_is_refused_in_the_hello_reply(
    spawn: Callable[[], Any], tmp_path: Path, planted: str, at: str
) -> None:
    """The host used to reply `listening: true`, then exit 1 when it could not take the
    lock or write the descriptor. Now it refuses before replying, as for an unsafe folder."""
    first: Host = await spawn()  # learns this browser's names from a host that publishes
    await first.hello()
    [descriptor] = await wait_for_descriptors()
    first.close_stdin()
    assert await first.wait_exit(5) == 0
    name = descriptor.name if at == "descriptor" else f".{descriptor.stem}.lock"
    target = tmp_path / "target"
    target.write_bytes(b"")
    if planted == "directory":
        (providers_dir() / name).mkdir()
    else:
        (providers_dir() / name).symlink_to(target)

    host: Host = await spawn()
    result = await host.hello()
    assert result["listening"] is False
    problem = result["problem"]
    assert name in problem and at in problem
    assert problem.endswith(f"Remove {providers_dir() / name} and restart the browser.")
    assert psutil.Process(host.process.pid).net_connections("tcp") == []
    again = await host.hello()  # a marker: the host still reads and answers after saying why
    assert again["listening"] is False
    assert host.process.returncode is None  # connected, saying why: no exit, no restart loop
    host.close_stdin()
    assert await host.wait_exit(5) == 0
    assert target.read_bytes() == b""  # never written through
    planted_path = providers_dir() / name
    assert planted_path.is_symlink() if planted == "symlink" else list(planted_path.iterdir()) == []
    assert [p.name for p in providers_dir().glob("*.json")] == ([name] if at == "descriptor" else [])


async def wait_for_descriptors() -> list[Path]:
    """The descriptors in the providers folder once there is one (host_process.WAIT_S)."""
    await wait_until(lambda: bool(descriptors()), what="the descriptor")
    return descriptors()
