"""discover and choose_provider (native_host/host/discovery.py, design.md §7): every descriptor in the
providers folder, usable or rejected with a reason, and which provider a host talks to.

The folder and file checks run against real modes, owners and symlinks (design.md §3; the verdicts
come from host/descriptor_files.py); the usable descriptor names a real listening fake provider
(tests/support/fake_provider.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from native_host.errors import ProviderRejected, ProviderUnavailable
from native_host.host import ProviderInfo, choose_provider, discover
from tests.support.fake_provider import BUNDLE, TOKEN, FakeProvider, fake_provider, same_bundle
from tests.support.processes import reaped_pid


async def test_discover_lists_usable_and_rejected_descriptors_with_reasons(providers_folder: Path) -> None:
    async with fake_provider() as p:
        p.write(providers_folder)
        p.write(providers_folder, pid=reaped_pid(), bundleId="org.example.Gone")
        (providers_folder / "broken-1.json").write_text("{not json")
        found = discover(identify=same_bundle)
    by_name = {info.path.name: info for info in found}
    assert by_name[f"{BUNDLE}-{os.getpid()}.json"].usable
    gone = next(i for i in found if i.descriptor and i.descriptor.bundle_id == "org.example.Gone")
    assert gone.rejection is not None and gone.rejection.reason == "process_gone"
    assert by_name["broken-1.json"].rejection is not None
    assert by_name["broken-1.json"].rejection.reason == "unreadable"
    for info in found:
        assert TOKEN not in json.dumps(info.to_json())


def test_discover_of_a_missing_folder_is_empty(tmp_path: Path) -> None:
    assert discover(tmp_path / "nope") == []


posix_only = pytest.mark.skipif(os.name != "posix", reason="modes and owners are POSIX (design.md §3)")


@posix_only
@pytest.mark.parametrize("mode", [0o775, 0o777, 0o722])
async def test_descriptors_in_a_folder_others_can_write_are_refused(
    providers_folder: Path, mode: int
) -> None:
    async with fake_provider() as p:
        p.write(providers_folder).chmod(0o600)
        providers_folder.chmod(mode)
        [info] = discover(identify=same_bundle)
    assert not info.usable and info.rejection is not None
    assert info.rejection.reason == "unsafe_folder"
    assert f"chmod 700 {providers_folder}" in info.rejection.message


@posix_only
@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666])
async def test_a_descriptor_others_can_write_is_refused(providers_folder: Path, mode: int) -> None:
    async with fake_provider() as p:
        p.write(providers_folder).chmod(mode)
        [info] = discover(identify=same_bundle)
    assert info.rejection is not None and info.rejection.reason == "unsafe_file"
    assert TOKEN not in json.dumps(info.to_json())


@posix_only
async def test_a_symlinked_folder_or_descriptor_is_refused(tmp_path: Path, providers_folder: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    async with fake_provider() as p:
        real = p.write(elsewhere)
        real.chmod(0o600)
        (providers_folder / "linked-1.json").symlink_to(real)
        [linked] = discover(identify=same_bundle)
        link = tmp_path / "link"
        link.symlink_to(elsewhere)
        [via_link] = discover(link, identify=same_bundle)
    assert linked.rejection is not None and linked.rejection.reason == "unsafe_file"
    assert via_link.rejection is not None and via_link.rejection.reason == "unsafe_folder"


@posix_only
async def test_readable_by_others_is_used_with_a_warning(providers_folder: Path) -> None:
    async with fake_provider() as p:
        path = p.write(providers_folder)
        path.chmod(0o600)
        [private] = discover(identify=same_bundle)
        path.chmod(0o644)
        providers_folder.chmod(0o755)
        [readable] = discover(identify=same_bundle)
    assert private.usable and private.warning is None and "warning" not in private.to_json()
    assert readable.usable and readable.warning is not None
    assert "chmod 700" in readable.warning and "chmod 600" in readable.warning
    assert readable.to_json()["warning"] == readable.warning


def _info(pid: int, *, usable: bool = True) -> ProviderInfo:
    d = FakeProvider(port=1, path="/").descriptor(pid=pid, name=f"P{pid}")
    rejection = None if usable else ProviderRejected("stale", reason="process_gone")
    return ProviderInfo(Path(f"x-{pid}.json"), d, rejection)


def test_choose_takes_the_pid_given() -> None:
    infos = [_info(10), _info(20)]
    assert choose_provider(infos, 20, front_pid=lambda: None).pid == 20


def test_choose_with_a_pid_that_was_rejected_says_why() -> None:
    with pytest.raises(ProviderRejected) as info:
        choose_provider([_info(10, usable=False)], 10, front_pid=lambda: None)
    assert info.value.reason == "process_gone"


def test_choose_prefers_the_front_app_then_the_only_provider() -> None:
    infos = [_info(10), _info(20)]
    assert choose_provider(infos, front_pid=lambda: 10).pid == 10
    assert choose_provider([_info(30)], front_pid=lambda: 99).pid == 30


def test_choose_among_several_asks_for_a_pid_and_lists_them() -> None:
    with pytest.raises(ProviderUnavailable) as info:
        choose_provider([_info(10), _info(20)], front_pid=lambda: None)
    assert "--pid" in str(info.value) and "P10 (pid 10)" in str(info.value) and "P20" in str(info.value)


def test_choose_with_nothing_usable_says_so() -> None:
    with pytest.raises(ProviderUnavailable, match="No usable provider"):
        choose_provider([_info(10, usable=False)], front_pid=lambda: None)
