"""`webctx doctor`'s `versions` check: the extension folder, and the extension a
running provider was started by (its descriptor's `extensionVersion`/`extensionProtocol`), against
this package's webctx release and provider protocol; the message names both, the fix the side."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from native_host import __version__, paths
from native_host.install.doctor_versions import check_versions, extension_versions
from native_host.protocol.version import PROTOCOL_VERSION, UPDATE_EXTENSION_FIX, UPDATE_HOST_FIX
from native_host.provider.descriptor_files import write_descriptor
from tests.support.descriptors import make_descriptor


def extension_copy(tmp_path: Path, version: str) -> Path:
    """A copy of the shipped extension folder whose manifest says `version`."""
    folder = tmp_path / "extension"
    shutil.copytree(paths.extension_dir(), folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    (folder / "manifest.json").write_text(json.dumps({**manifest, "version": version}), encoding="utf-8")
    return folder


def test_the_shipped_extension_folder_is_this_release() -> None:
    assert extension_versions(paths.extension_dir()) == (__version__, PROTOCOL_VERSION)
    check = check_versions(live=False)
    assert check.ok and check.name == "versions"
    assert f"webctx {__version__} (protocol {PROTOCOL_VERSION})" in check.message


def test_an_extension_folder_of_another_release_is_broken_with_both_versions(tmp_path: Path) -> None:
    check = check_versions(extension_copy(tmp_path, "0.0.1"), live=False)
    assert not check.ok
    assert f"webctx 0.0.1 (protocol {PROTOCOL_VERSION})" in check.message
    assert f"webctx {__version__} (protocol {PROTOCOL_VERSION})" in check.message
    assert check.fix == UPDATE_EXTENSION_FIX


def test_a_running_provider_started_by_another_extension_is_broken(isolated_home: Path) -> None:
    """The folder is right, but the browser runs a newer copy of the extension: its hello, which the
    host wrote into the descriptor, says another protocol and release."""
    folder = paths.providers_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = make_descriptor(
        pid=os.getppid(), host_version=__version__, extension_version="9.9.9", extension_protocol="0.9.0"
    )
    write_descriptor(folder, descriptor)
    check = check_versions(providers=folder)
    assert not check.ok, check.message
    assert f"Chromium (pid {os.getppid()})" in check.message
    assert "webctx 9.9.9 (protocol 0.9.0)" in check.message
    assert f"webctx {__version__} (protocol {PROTOCOL_VERSION})" in check.message
    assert check.fix == UPDATE_HOST_FIX


def test_a_running_provider_of_this_release_is_named_ok(isolated_home: Path) -> None:
    folder = paths.providers_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    same = make_descriptor(
        pid=os.getppid(), host_version=__version__, extension_version=__version__,
        extension_protocol=PROTOCOL_VERSION,
    )
    write_descriptor(folder, same)
    check = check_versions(providers=folder)
    assert check.ok and f"Chromium (pid {os.getppid()}) runs that pair" in check.message, check.message
