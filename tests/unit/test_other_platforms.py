"""The macOS and Windows branches, run here on Linux with faked OS answers.

What is faked is only what the OS answers: `sys.platform`, the environment, an `.app` bundle's
Info.plist on disk, the `winreg` module, Quartz's window list, user32's window enumeration. The code
under test is the real code those branches run. The type checks of the same branches are the
`mypy --platform darwin|win32` steps of scripts/test.sh; the install tables per OS are
tests/unit/install/test_install_table.py.
"""

from __future__ import annotations

import ctypes
import plistlib
import sys
import tomllib
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import psutil
import pytest
from packaging.requirements import Requirement

from native_host import paths
from native_host.host import expected_bundle_id
from native_host.install import manifests
from native_host.install.registry import WinRegistry, default_registry
from native_host.protocol import browser_identity
from native_host.protocol.answers import WindowBounds
from native_host.provider import platform
from native_host.provider.platform import macos, windows
from native_host.stdio import provider_link

BOUNDS = WindowBounds(left=100, top=50, width=900, height=700)


# The providers folder (design.md §3 table) -----------------------------------------------------------


def test_the_providers_folder_on_macos_is_in_application_support(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CONTEXT_PROVIDERS_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1000")  # Linux only: ignored on macOS
    monkeypatch.setattr(sys, "platform", "darwin")
    expected = tmp_path / "Library" / "Application Support" / "ContextProviders"
    assert paths.providers_dir() == expected
    assert provider_link.default_providers_folder() == expected, "no /run/user fallback on macOS"


def test_the_providers_folder_on_windows_is_under_localappdata(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CONTEXT_PROVIDERS_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert paths.providers_dir() == tmp_path / "Local" / "ContextProviders"
    monkeypatch.delenv("LOCALAPPDATA")
    assert paths.providers_dir() == tmp_path / "AppData" / "Local" / "ContextProviders"


# The bundle id and name from an app bundle's Info.plist (macOS) -------------------------------


class _Process:
    """What expected_bundle_id asks of a psutil.Process: its executable and name."""

    def __init__(self, exe: Path) -> None:
        self._exe = exe

    def exe(self) -> str:
        return str(self._exe)

    def name(self) -> str:
        return self._exe.name


def _app(tmp_path: Path, name: str, info: dict[str, Any] | bytes) -> Path:
    """A fake `<name>.app` bundle; returns the executable inside it."""
    contents = tmp_path / f"{name}.app" / "Contents"
    (contents / "MacOS").mkdir(parents=True)
    plist = info if isinstance(info, bytes) else plistlib.dumps(info)
    (contents / "Info.plist").write_bytes(plist)
    exe = contents / "MacOS" / name
    exe.write_text("")
    return exe


def test_macos_takes_the_bundle_id_name_and_version_from_info_plist(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    exe = _app(tmp_path, "Google Chrome Beta", {
        "CFBundleIdentifier": "com.google.Chrome.beta", "CFBundleName": "Google Chrome Beta",
        "CFBundleShortVersionString": "157.0.1.2", "LSMinimumSystemVersion": 12,
    })
    monkeypatch.setattr(sys, "platform", "darwin")
    assert expected_bundle_id(cast(psutil.Process, _Process(exe))) == "com.google.Chrome.beta"
    monkeypatch.setattr(browser_identity, "find_browser_process", lambda start_pid=None: (4242, str(exe)))
    identity = browser_identity.identify_browser()
    assert (identity.pid, identity.bundle_id) == (4242, "com.google.Chrome.beta")
    assert (identity.name, identity.version) == ("Google Chrome Beta", "157.0.1.2")


def test_macos_falls_back_to_the_table_when_info_plist_is_unreadable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    exe = _app(tmp_path, "Google Chrome", b"not a plist")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert expected_bundle_id(cast(psutil.Process, _Process(exe))) == "com.google.Chrome"


# The Windows registry (winreg faked) and launcher -----------------------------------------------


def _fake_winreg(store: dict[str, str]) -> types.ModuleType:
    """A `winreg` whose HKEY_CURRENT_USER is `store` (subkey → default value)."""

    class Key:
        def __init__(self, subkey: str) -> None:
            self.subkey = subkey

        def __enter__(self) -> Key:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

    def open_key(root: object, subkey: str) -> Key:
        if subkey not in store:
            raise FileNotFoundError(subkey)
        return Key(subkey)

    def query_value_ex(key: Key, name: str) -> tuple[str, int]:
        assert name == "", "only the default value is used"
        return store[key.subkey], 1

    def create_key_ex(root: object, subkey: str, reserved: int, access: int) -> Key:
        assert access == module.KEY_WRITE
        store.setdefault(subkey, "")
        return Key(subkey)

    def set_value_ex(key: Key, name: str, reserved: int, kind: int, value: str) -> None:
        assert (name, kind) == ("", module.REG_SZ)
        store[key.subkey] = value

    def delete_key(root: object, subkey: str) -> None:
        if subkey not in store:
            raise FileNotFoundError(subkey)
        del store[subkey]

    module = types.ModuleType("winreg")
    module.__dict__.update(
        HKEY_CURRENT_USER=object(), KEY_WRITE=0x20006, REG_SZ=1, OpenKey=open_key,
        QueryValueEx=query_value_ex, CreateKeyEx=create_key_ex, SetValueEx=set_value_ex, DeleteKey=delete_key,
    )
    return module


def test_the_registry_writes_reads_and_deletes_the_hkcu_default_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store: dict[str, str] = {}
    monkeypatch.setitem(sys.modules, "winreg", _fake_winreg(store))
    monkeypatch.setattr(sys, "platform", "win32")
    registry = default_registry()
    assert isinstance(registry, WinRegistry)
    key = r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts\webctx.native_host"
    assert registry.get_default(key) is None
    registry.set_default(key, r"C:\Users\a\AppData\Local\webctx\webctx.native_host.json")
    assert store == {
        r"Software\Microsoft\Edge\NativeMessagingHosts\webctx.native_host":
            r"C:\Users\a\AppData\Local\webctx\webctx.native_host.json"
    }
    assert registry.get_default(key) == r"C:\Users\a\AppData\Local\webctx\webctx.native_host.json"
    registry.delete_key(key)
    registry.delete_key(key)  # a missing key is fine
    assert store == {}
    with pytest.raises(ValueError, match="not an HKCU key"):
        registry.get_default(r"HKLM\Software\x")


def test_the_windows_launcher_puts_the_package_first_on_pythonpath_with_crlf_lines() -> None:
    text = manifests.launcher_text(r"C:\Program Files\Python312\python.exe", "windows")
    lines = text.split("\r\n")
    assert lines[-1] == "" and "\n" not in text.replace("\r\n", ""), "every line ends CRLF, none bare"
    root = str(Path(manifests.__file__).resolve().parent.parent.parent)
    assert f'set "PYTHONPATH={root};%PYTHONPATH%"' in lines
    assert lines[-2] == '"C:\\Program Files\\Python312\\python.exe" -m native_host %*'
    assert manifests.launcher_file("windows") == "webctx-native-host.cmd"


# Window numbers: Quartz (macOS) and user32 (Windows) faked -------------------------------------


def _window(number: int, pid: int, x: float, y: float, w: float, h: float, layer: int = 0) -> dict[str, Any]:
    return {
        "kCGWindowNumber": number, "kCGWindowOwnerPID": pid, "kCGWindowLayer": layer,
        "kCGWindowBounds": {"X": x, "Y": y, "Width": w, "Height": h},
    }


def test_macos_picks_the_browsers_layer_0_window_closest_to_the_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    infos = [
        _window(1, 99, 100, 50, 900, 700),  # another app's window at the same place
        _window(2, 7, 100, 50, 900, 700, layer=25),  # the browser's status-bar item / a popup layer
        _window(3, 7, 110, 60, 900, 700),  # close, but not the closest
        _window(4, 7, 100, 51, 900, 700),  # the one
        _window(5, 7, 0, 0, 300, 200),  # another browser window elsewhere
    ]
    asked: list[tuple[object, object]] = []

    def copy_window_info(option: object, relative_to: object) -> list[dict[str, Any]]:
        asked.append((option, relative_to))
        return infos

    quartz = types.ModuleType("Quartz")
    quartz.__dict__.update(
        CGWindowListCopyWindowInfo=copy_window_info, kCGWindowListOptionOnScreenOnly=1, kCGNullWindowID=0
    )
    monkeypatch.setitem(sys.modules, "Quartz", quartz)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert platform.has_windows()
    assert platform.window_number(BOUNDS, 7) == 4
    assert asked == [(1, 0)], "on-screen windows only"
    assert macos.window_number(BOUNDS, 8) is None, "no window of that pid"
    assert macos.window_number(WindowBounds(left=2000, top=50, width=900, height=700), 7) is None


def test_macos_without_quartz_omits_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "Quartz", None)  # an import of it raises ImportError
    assert macos.window_number(BOUNDS, 7) is None


class _User32:
    """user32's answers for a few top-level windows: hwnd → (visible, pid, rect in pixels, dpi)."""

    def __init__(self, windows: dict[int, tuple[bool, int, tuple[int, int, int, int], int]]) -> None:
        self.windows = windows

    def EnumWindows(self, callback: Callable[[int, int], bool], lparam: int) -> bool:
        for hwnd in self.windows:
            if not callback(hwnd, lparam):
                break
        return True

    def IsWindowVisible(self, hwnd: int) -> bool:
        return self.windows[hwnd][0]

    def GetWindowThreadProcessId(self, hwnd: int, pid_ref: Any) -> int:
        pid_ref._obj.value = self.windows[hwnd][1]
        return 1

    def GetWindowRect(self, hwnd: int, rect_ref: Any) -> bool:
        rect = rect_ref._obj
        rect.left, rect.top, rect.right, rect.bottom = self.windows[hwnd][2]
        return True

    def GetDpiForWindow(self, hwnd: int) -> int:
        return self.windows[hwnd][3]


def test_windows_picks_the_visible_browser_window_at_the_bounds_scaled_by_its_dpi(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scaled = (150, 75, 150 + 1350, 75 + 1050)  # BOUNDS at 144 dpi (150 %), in physical pixels
    user32 = _User32({
        0x10: (False, 7, scaled, 144),  # hidden
        0x20: (True, 99, scaled, 144),  # another process
        0x30: (True, 7, (100, 50, 1000, 750), 144),  # the browser's window at 100 % coordinates: off
        0x40: (True, 7, scaled, 144),  # the one
    })
    monkeypatch.setattr(ctypes, "windll", types.SimpleNamespace(user32=user32), raising=False)
    monkeypatch.setattr(ctypes, "WINFUNCTYPE", lambda *signature: (lambda function: function), raising=False)
    monkeypatch.setattr(sys, "platform", "win32")
    assert platform.has_windows()
    assert platform.window_number(BOUNDS, 7) == 0x40
    assert windows.window_number(BOUNDS, 8) is None
    user32.windows[0x40] = (True, 7, (100, 50, 1000, 750), 96)  # 100 %: now 0x30's rect matches too
    assert windows.window_number(BOUNDS, 7) in (0x30, 0x40)


def test_windows_code_answers_none_on_other_systems() -> None:
    assert windows.window_number(BOUNDS, 7) is None


# The macOS-only dependency ----------------------------------------------------------------------


def test_quartz_is_a_dependency_on_macos_only() -> None:
    project = tomllib.loads((paths.REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [Requirement(text) for text in project["dependencies"]]
    [quartz] = [r for r in requirements if r.name.lower() == "pyobjc-framework-quartz"]
    assert quartz.marker is not None
    assert quartz.marker.evaluate({"sys_platform": "darwin"})
    assert not quartz.marker.evaluate({"sys_platform": "linux"})
    assert not quartz.marker.evaluate({"sys_platform": "win32"})
