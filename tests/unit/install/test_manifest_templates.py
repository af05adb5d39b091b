"""The templates in manifests/ (native_host/install/templates.py): what install and the Firefox build
write from them is byte for byte what webctx wrote when the dicts were built in code, every
placeholder they use is one the writers fill (and manifests/README.md names), and the wheel's
bundled copy is found when there is no checkout.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from native_host import paths
from native_host.errors import InstallError
from native_host.install import firefox, installer, manifests, templates

EXT_ID = "kbmgfelnojabkebealaikmhmkcjnbgpl"
STORE_ID = "abcdefghijklmnopabcdefghijklmnop"
MANIFESTS = paths.REPO_ROOT / "manifests"
FILLED = {"host_name", "launcher", "extension_id", "gecko_id", "service_worker"}


def test_a_written_chromium_host_manifest_is_byte_for_byte_the_same(tmp_path: Path) -> None:
    udd = tmp_path / "udd"
    udd.mkdir()
    report = installer.install(user_data_dir=udd, ext_id=EXT_ID, extra_ids=[STORE_ID])
    (manifest,) = [entry.manifest for entry in report.browsers]
    assert manifest.read_bytes().decode() == (
        "{\n"
        '  "name": "webctx.native_host",\n'
        '  "description": "webctx: makes this browser a context provider for desktop AI hosts",\n'
        f'  "path": "{report.launcher}",\n'
        '  "type": "stdio",\n'
        '  "allowed_origins": [\n'
        f'    "chrome-extension://{EXT_ID}/",\n'
        f'    "chrome-extension://{STORE_ID}/"\n'
        "  ]\n"
        "}\n"
    )


def test_a_written_firefox_host_manifest_is_byte_for_byte_the_same(isolated_home: Path) -> None:
    uuid_id = "{8c0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b}"  # a Firefox id in braces stays as it is
    report = installer.install(
        "firefox", home=isolated_home, ext_id=EXT_ID, extra_ids=["me@example.org", uuid_id, STORE_ID]
    )
    (manifest,) = report.written
    assert manifest.read_bytes().decode() == (
        "{\n"
        '  "name": "webctx.native_host",\n'
        '  "description": "webctx: makes this browser a context provider for desktop AI hosts",\n'
        f'  "path": "{report.launcher}",\n'
        '  "type": "stdio",\n'
        '  "allowed_extensions": [\n'
        '    "webctx@webctx.dev",\n'
        '    "me@example.org",\n'
        f'    "{uuid_id}"\n'
        "  ]\n"
        "}\n"
    )


def _firefox_manifest_as_built_in_code(chromium: dict[str, Any]) -> dict[str, Any]:
    """How install/firefox.py built the Firefox manifest before the overlay existed (the reference)."""
    manifest = copy.deepcopy(chromium)
    manifest.pop("key", None)
    background = manifest.get("background", {})
    worker = background.pop("service_worker", None)
    if worker:
        background["scripts"] = [worker]
    manifest["background"] = background
    for entry in manifest.get("content_scripts", []):
        entry.pop("match_origin_as_fallback", None)
    manifest["browser_specific_settings"] = {
        "gecko": {"id": manifests.GECKO_ID, "strict_min_version": "128.0"}
    }
    return manifest


def test_the_firefox_build_s_manifest_is_byte_for_byte_the_same(tmp_path: Path) -> None:
    chromium = json.loads((paths.extension_dir() / "manifest.json").read_text(encoding="utf-8"))
    dest = firefox.build_firefox(tmp_path / "ff")
    reference = _firefox_manifest_as_built_in_code(chromium)
    expected = json.dumps(reference, indent=2, ensure_ascii=False) + "\n"
    assert (dest / "manifest.json").read_bytes().decode() == expected


def test_every_placeholder_in_the_templates_is_filled_and_documented() -> None:
    readme = (MANIFESTS / "README.md").read_text(encoding="utf-8")
    files = sorted(MANIFESTS.glob("*.json"))
    assert {p.name for p in files} == {*templates.HOST_MANIFEST_TEMPLATES.values(), templates.FIREFOX_OVERLAY}
    used = {name for p in files for name in templates.PLACEHOLDER.findall(p.read_text(encoding="utf-8"))}
    assert used == FILLED
    assert set(re.findall(r"`\{([a-z_]+)\}`", readme)) == FILLED
    for path in files:
        assert f"`{path.name}`" in readme, f"manifests/README.md does not describe {path.name}"


def test_fill_repeats_a_list_item_per_value_and_merge_patch_merges_into_every_list_item() -> None:
    filled = templates.fill({"a": "x{one}y", "b": ["<{many}>", "k"]}, {"one": "1", "many": ["p", "q"]})
    assert filled == {"a": "x1y", "b": ["<p>", "<q>", "k"]}
    with pytest.raises(KeyError, match="unknown"):
        templates.fill("{unknown}", {})
    target = {"k": 1, "l": [{"a": 1, "b": 2}, {"b": 3}], "o": {"x": 1, "y": 2}}
    patched = templates.merge_patch(target, {"k": None, "l": {"b": None}, "o": {"x": None, "z": 3}, "n": [1]})
    assert patched == {"l": [{"a": 1}, {}], "o": {"y": 2, "z": 3}, "n": [1]}
    assert list(patched["o"]) == ["y", "z"], "new keys go last, kept keys keep their place"
    assert target == {"k": 1, "l": [{"a": 1, "b": 2}, {"b": 3}], "o": {"x": 1, "y": 2}}, "not modified"


def test_the_bundled_templates_are_found_without_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundled = tmp_path / "site-packages" / "native_host" / "_bundled"
    shutil.copytree(MANIFESTS, bundled / "manifests")
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path / "site-packages")
    monkeypatch.setattr(paths, "BUNDLED", bundled)
    assert paths.manifests_dir() == bundled / "manifests"
    shutil.rmtree(bundled / "manifests")
    with pytest.raises(FileNotFoundError, match="Reinstall webctx"):
        paths.manifests_dir()


def test_a_missing_template_is_an_install_error_ending_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paths, "manifests_dir", lambda: tmp_path)
    with pytest.raises(InstallError) as info:
        manifests.host_manifest("/x", [EXT_ID])
    assert str(info.value).endswith("Reinstall webctx.")
