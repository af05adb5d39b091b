"""The Windows registry, behind a small interface (design.md §6: `HKCU\\…\\NativeMessagingHosts\\<host>`).

`install` writes one value per browser: the default value of `<key>\\webctx.native_host` is the
manifest file's full path. `WinRegistry` does that through `winreg`; `MemoryRegistry` is the
in-memory stand-in the tests use. The `winreg` code is NOT run by the test suite (there is no
Windows machine in CI); it is kept small so reading it is the review.
"""

from __future__ import annotations

import sys
from typing import Protocol

HKCU_PREFIX = "HKCU\\"


class Registry(Protocol):
    """The three registry operations install/uninstall/doctor need. Keys are full paths starting
    with `HKCU\\`; only the key's default value is used."""

    def get_default(self, key: str) -> str | None:
        """The default value of `key`, or None when the key (or its value) does not exist."""
        ...

    def set_default(self, key: str, value: str) -> None:
        """Create `key` (and its parents) and set its default value to the string `value`."""
        ...

    def delete_key(self, key: str) -> None:
        """Delete `key` (a leaf key); a missing key is fine."""
        ...


class MemoryRegistry:
    """An in-memory Registry: `values` maps key (case-insensitive, as Windows) → default value."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get_default(self, key: str) -> str | None:
        """See Registry."""
        return self.values.get(key.lower())

    def set_default(self, key: str, value: str) -> None:
        """See Registry."""
        self.values[key.lower()] = value

    def delete_key(self, key: str) -> None:
        """See Registry."""
        self.values.pop(key.lower(), None)


class WinRegistry:
    """The real registry through `winreg` (Windows only; not run by the test suite)."""

    def get_default(self, key: str) -> str | None:
        """See Registry."""
        if sys.platform != "win32":
            raise OSError("the Windows registry exists only on Windows")
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, _subkey(key)) as handle:
                value, _type = winreg.QueryValueEx(handle, "")
        except FileNotFoundError:
            return None
        return str(value)

    def set_default(self, key: str, value: str) -> None:
        """See Registry."""
        if sys.platform != "win32":
            raise OSError("the Windows registry exists only on Windows")
        import winreg

        with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, _subkey(key), 0, winreg.KEY_WRITE) as handle:
            winreg.SetValueEx(handle, "", 0, winreg.REG_SZ, value)

    def delete_key(self, key: str) -> None:
        """See Registry."""
        if sys.platform != "win32":
            raise OSError("the Windows registry exists only on Windows")
        import winreg

        try:
            winreg.DeleteKey(winreg.HKEY_CURRENT_USER, _subkey(key))
        except FileNotFoundError:
            return


def _subkey(key: str) -> str:
    if not key.upper().startswith(HKCU_PREFIX):
        raise ValueError(f"not an HKCU key: {key}")
    return key[len(HKCU_PREFIX):]


def default_registry() -> Registry | None:
    """The real registry on Windows, else None."""
    return WinRegistry() if sys.platform == "win32" else None
