"""`webctx doctor` (native_host/install/doctor*.py): one test per failure class found in the wild.

Each test breaks one link by hand, as a user would, and checks that doctor names that link (and only
that one) with a fix. The last link (a live provider answering `current`) is covered against a real
Chromium in tests/e2e/test_popup.py.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from native_host import paths
from native_host.cli.main import main
from native_host.install import doctor, doctor_manifest, doctor_readme, installer, locations, manifests
from native_host.install.registry import MemoryRegistry
from native_host.provider.descriptor_files import write_descriptor
from tests.support.descriptors import make_descriptor
from tests.support.processes import reaped_pid

EXT_ID = "kbmgfelnojabkebealaikmhmkcjnbgpl"
README = Path(__file__).resolve().parents[3] / "README.md"



def only_chromium(row: locations.Location) -> bool:
    return row.browser == "chromium"


def run_doctor(home: Path, **kwargs: object) -> list[doctor.Check]:
    return doctor.diagnose(home=home, present=only_chromium, live=False, **kwargs)  # type: ignore[arg-type]


def broken(checks: list[doctor.Check]) -> list[doctor.Check]:
    return [c for c in checks if not c.ok]


@pytest.fixture
def installed(isolated_home: Path) -> Path:
    """`webctx install --browser chromium` into the test's home; yield the manifest path."""
    report = installer.install("chromium", home=isolated_home, ext_id=EXT_ID)
    return report.written[0]


def edit_manifest(manifest: Path, **changes: object) -> None:
    data = json.loads(manifest.read_text())
    data.update(changes)
    manifest.write_text(json.dumps(data))


def test_a_fresh_install_is_ok_on_every_link(installed: Path, isolated_home: Path) -> None:
    checks = run_doctor(isolated_home)
    assert broken(checks) == []
    assert [c.name for c in checks] == [
        "extension.folder", "manifest.present", "manifest.json", "manifest.keys", "manifest.name",
        "manifest.path",
        "manifest.allowed", "launcher.interpreter", "providers.folder", "providers.stale", "versions",
    ]
    assert {c.name for c in checks} <= {info.name for info in doctor.CHECKS}


def test_a_manifest_in_the_wrong_folder_is_named_with_where_it_is(isolated_home: Path) -> None:
    wrong = installer.install("chrome", home=isolated_home, ext_id=EXT_ID).written[0]
    (bad,) = broken(run_doctor(isolated_home))
    assert bad.name == "manifest.present"
    assert str(wrong) in bad.message and "does not read" in bad.message
    assert bad.fix == "`webctx install --browser chromium`"


def test_a_relative_path_is_broken(installed: Path, isolated_home: Path) -> None:
    edit_manifest(installed, path="webctx-native-host")
    (bad,) = broken(run_doctor(isolated_home))
    assert bad.name == "manifest.path" and "not absolute" in bad.message


def test_a_launcher_without_the_execute_bit_is_broken(installed: Path, isolated_home: Path) -> None:
    launcher = Path(json.loads(installed.read_text())["path"])
    launcher.chmod(0o644)
    (bad,) = broken(run_doctor(isolated_home))
    assert bad.name == "manifest.path" and bad.fix.startswith("chmod +x ")


def test_wrong_allowed_origins_are_broken(installed: Path, isolated_home: Path) -> None:
    edit_manifest(installed, allowed_origins=["chrome-extension://abcdefghijklmnopabcdefghijklmnop/"])
    (bad,) = broken(run_doctor(isolated_home))
    assert bad.name == "manifest.allowed"
    assert f"chrome-extension://{EXT_ID}/" in bad.message and "--extension-id" in bad.fix


@pytest.mark.parametrize(
    ("text", "name"), [("{not json", "manifest.json"), (json.dumps({"name": "other.host"}), "manifest.name")]
)
def test_an_unreadable_or_misnamed_manifest_is_broken(
    installed: Path, isolated_home: Path, text: str, name: str
) -> None:
    installed.write_text(text)
    assert name in [c.name for c in broken(run_doctor(isolated_home))]


def test_a_stale_descriptor_is_broken(installed: Path, isolated_home: Path) -> None:
    gone_pid = reaped_pid()
    descriptor = make_descriptor(pid=gone_pid, listener_pid=gone_pid)
    path = write_descriptor(paths.providers_dir(), descriptor)
    (bad,) = broken(run_doctor(isolated_home))
    assert bad.name == "providers.stale" and path.name in bad.message and bad.fix == f"rm {path}"


def test_a_removed_interpreter_is_broken(tmp_path: Path, isolated_home: Path) -> None:
    python = tmp_path / "venv-python"
    python.symlink_to(sys.executable)
    installer.install("chromium", home=isolated_home, ext_id=EXT_ID, python=str(python))
    assert broken(run_doctor(isolated_home)) == []
    python.unlink()
    (bad,) = broken(run_doctor(isolated_home))
    assert bad.name == "launcher.interpreter" and "no longer exists" in bad.message


def test_an_interpreter_that_cannot_import_native_host_is_broken(tmp_path: Path, isolated_home: Path) -> None:
    other = tmp_path / "other-python"
    other.write_text('#!/bin/sh\necho "ModuleNotFoundError: No module named native_host" >&2\nexit 1\n')
    other.chmod(0o755)
    installer.install("chromium", home=isolated_home, ext_id=EXT_ID, python=str(other))
    (bad,) = broken(run_doctor(isolated_home))
    assert bad.name == "launcher.interpreter" and "cannot import native_host" in bad.message


def test_a_providers_folder_with_mode_0755_is_broken(installed: Path, isolated_home: Path) -> None:
    folder = paths.providers_dir()
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    (bad,) = broken(run_doctor(isolated_home))
    assert bad.name == "providers.folder" and "755" in bad.message
    assert bad.fix == f"chmod 700 {folder}, then restart the browser"


def test_the_interpreter_is_read_from_both_kinds_of_launcher(tmp_path: Path) -> None:
    sh = tmp_path / "webctx-native-host"
    sh.write_text(manifests.launcher_text("/opt/py 3/bin/python", "linux"))
    cmd = tmp_path / "webctx-native-host.cmd"
    cmd.write_text(manifests.launcher_text(r"C:\Py\python.exe", "windows"), newline="")
    root = str(Path(manifests.__file__).resolve().parents[2])
    assert doctor_manifest.launcher_interpreter(sh) == ("/opt/py 3/bin/python", root)
    assert doctor_manifest.launcher_interpreter(cmd) == (r"C:\Py\python.exe", root)


def test_no_live_provider_is_broken(installed: Path) -> None:
    bad = doctor.check_live(paths.providers_dir())
    assert not bad.ok and bad.name == "provider.live" and "popup" in bad.fix


def test_a_flatpak_browser_without_the_talk_permission_is_broken(isolated_home: Path) -> None:
    installer.install("chromium-flatpak", home=isolated_home, ext_id=EXT_ID)
    (bad,) = broken(doctor.diagnose(home=isolated_home, browser="chromium-flatpak", live=False))
    assert bad.name == "sandbox.flatpak"
    assert bad.fix == "flatpak override --user --talk-name=org.freedesktop.Flatpak org.chromium.Chromium"


def test_a_flatpak_wrapper_is_followed_to_the_real_interpreter(isolated_home: Path) -> None:
    installer.install("chromium-flatpak", home=isolated_home, ext_id=EXT_ID)
    overrides = isolated_home / ".local/share/flatpak/overrides/org.chromium.Chromium"
    overrides.parent.mkdir(parents=True)
    overrides.write_text("[Session Bus Policy]\norg.freedesktop.Flatpak=talk\n")
    checks = doctor.diagnose(home=isolated_home, browser="chromium-flatpak", live=False)
    assert broken(checks) == []
    assert any(c.name == "launcher.interpreter" and sys.executable in c.message for c in checks)


def test_a_windows_registry_key_that_names_another_file_is_broken(
    tmp_path: Path, isolated_home: Path
) -> None:
    registry = MemoryRegistry()
    kwargs = dict(os_name="windows", home=isolated_home, launcher_dir=tmp_path / "l", registry=registry)
    installer.install("edge", ext_id=EXT_ID, python=sys.executable, **kwargs)  # type: ignore[arg-type]
    key = r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts\webctx.native_host"
    manifest = tmp_path / "l" / "webctx.native_host.json"
    # The .cmd launcher names this interpreter, so even its import check runs here.
    checks = doctor.diagnose(browser="edge", live=False, **kwargs)  # type: ignore[arg-type]
    assert broken(checks) == []
    assert "registry.key" in [c.name for c in checks]
    registry.set_default(key, "C:\\elsewhere.json")
    (bad,) = [c for c in doctor.diagnose(browser="edge", live=False, **kwargs)  # type: ignore[arg-type]
              if c.name == "registry.key"]
    assert not bad.ok and str(manifest) in bad.message


def test_the_cli_exits_1_with_json_when_a_link_is_broken(
    installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--browser", "chromium", "--no-live", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    edit_manifest(installed, path="relative")
    assert main(["doctor", "--browser", "chromium", "--no-live", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False
    (bad,) = [c for c in data["checks"] if not c["ok"]]
    assert set(bad) == {"name", "ok", "message", "fix"} and bad["name"] == "manifest.path"
    assert main(["doctor", "--browser", "chromium", "--no-live"]) == 1
    assert "BROKEN manifest.path" in capsys.readouterr().out


def test_the_troubleshooting_table_is_generated_from_the_checks() -> None:
    text = (README.parent / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
    start, end = doctor_readme.README_START, doctor_readme.README_END
    assert start in text and end in text, "docs/troubleshooting.md lacks the generated table"
    section = text.split(start, 1)[1].split(end, 1)[0]
    assert section.strip("\n") == doctor_readme.troubleshooting_markdown(doctor.CHECKS).strip("\n"), (
        "regenerate it: .venv/bin/python -m native_host.install.doctor --write-docs"
    )
