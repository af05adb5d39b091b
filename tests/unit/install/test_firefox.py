"""The Firefox build of the extension (native_host/install/firefox.py) and its registration.

These check the generated manifest, that every file it names is in the build, and that the host
manifest Firefox reads allows the build's Gecko id (the registration paths per OS are in
test_install_table.py). tests/e2e/test_firefox.py loads the build in a real Firefox ESR.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from native_host import paths
from native_host.cli.main import main
from native_host.install import firefox, installer, manifests


def chromium_manifest() -> dict[str, object]:
    data: dict[str, object] = json.loads((paths.extension_dir() / "manifest.json").read_text())
    return data


def test_the_firefox_manifest_differs_only_where_firefox_needs_it() -> None:
    chromium = chromium_manifest()
    ff = firefox.firefox_manifest(chromium)
    assert "key" not in ff and "key" in chromium, "the Chromium manifest is not modified"
    assert ff["background"] == {"scripts": ["service_worker/main.js"], "type": "module"}
    assert ff["browser_specific_settings"] == {
        "gecko": {"id": manifests.GECKO_ID, "strict_min_version": "128.0"}
    }
    for entry in ff["content_scripts"]:
        assert "match_origin_as_fallback" not in entry
    same = set(chromium) - {"key", "background", "content_scripts"}
    assert {k: ff[k] for k in same} == {k: chromium[k] for k in same}
    assert ff["manifest_version"] == 3


def test_the_firefox_manifest_keeps_the_polyfill_in_the_page_world_at_document_start() -> None:
    """Firefox runs `"world": "MAIN"` content scripts (tests/e2e/test_firefox.py, ESR 153, sees the
    polyfill's document.modelContext before the page's scripts): the entry is kept as it is."""
    ff = firefox.firefox_manifest(chromium_manifest())
    [polyfill] = [e for e in ff["content_scripts"] if "main_world/polyfill.js" in e["js"]]
    assert (polyfill["world"], polyfill["run_at"], polyfill["all_frames"]) == ("MAIN", "document_start", True)


def test_the_build_has_every_file_its_manifest_names(tmp_path: Path) -> None:
    dest = firefox.build_firefox(tmp_path / "ff")
    manifest = json.loads((dest / "manifest.json").read_text())
    named = [*manifest["background"]["scripts"], manifest["action"]["default_popup"]]
    named.append(manifest["options_ui"]["page"])
    named += [js for entry in manifest["content_scripts"] for js in entry["js"]]
    for name in named:
        assert (dest / name).is_file(), name
    assert not (dest / "test").exists()
    assert sorted(p.name for p in dest.glob("manifest*.json")) == ["manifest.json"]
    firefox.build_firefox(dest)  # again: replaced, not merged
    assert (dest / "manifest.json").is_file()


def test_the_host_manifest_firefox_reads_allows_the_build_s_gecko_id(isolated_home: Path) -> None:
    report = installer.install("firefox", home=isolated_home, ext_id="kbmgfelnojabkebealaikmhmkcjnbgpl")
    (path,) = report.written
    assert path == isolated_home / ".mozilla" / "native-messaging-hosts" / "webctx.native_host.json"
    gecko_id = firefox.firefox_manifest(chromium_manifest())["browser_specific_settings"]["gecko"]["id"]
    assert json.loads(path.read_text())["allowed_extensions"] == [gecko_id]


def test_extension_path_firefox_builds_and_prints_the_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extension-path", "--firefox"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert folder == firefox.firefox_build_dir()
    assert "browser_specific_settings" in json.loads((folder / "manifest.json").read_text())
