"""`webctx demo` refuses a providers folder the native host would refuse, before it starts a browser
(demo/runner.py asks the native host's own rule, protocol/providers_folder.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from native_host import paths
from native_host.demo.runner import _prepare_providers_folder
from native_host.errors import ProvidersFolderError

pytestmark = pytest.mark.skipif(os.name != "posix", reason="owner and mode rules are POSIX-only")


def test_a_missing_folder_is_created_private() -> None:
    folder = _prepare_providers_folder()
    assert folder == paths.providers_dir().absolute()
    assert folder.stat().st_mode & 0o777 == 0o700


def test_a_folder_others_can_read_is_refused_with_the_chmod_fix() -> None:
    folder = paths.providers_dir()
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    with pytest.raises(ProvidersFolderError, match=r"readable by other users.*chmod 700"):
        _prepare_providers_folder()


def test_a_symlinked_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    folder = paths.providers_dir()
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(real)
    with pytest.raises(ProvidersFolderError, match="is a symlink or another user's"):
        _prepare_providers_folder()
