"""native_host/provider/platform: OS window numbers for `location` (design.md §1.2 `window`)."""

from __future__ import annotations

import pytest

from native_host.protocol.answers import WindowBounds
from native_host.provider import platform
from native_host.provider.platform import linux

BOUNDS = WindowBounds(left=100, top=50, width=900, height=700)


def test_without_a_display_there_is_no_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    assert platform.has_windows() is False
    assert platform.window_number(BOUNDS, 1) is None


# python-xlib leaks the sockets of a failed connection (hence the retry delay in linux.py).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_unreachable_display_gives_none_and_waits_before_retrying(monkeypatch: pytest.MonkeyPatch) -> None:
    failures: dict[str, float] = {}
    monkeypatch.setattr(linux, "_failed_at", failures)
    monkeypatch.setenv("DISPLAY", ":987654")
    assert linux.window_number(BOUNDS, 1) is None
    assert set(failures) == {":987654"}
    assert linux.window_number(BOUNDS, 1) is None


def test_geometry_matches_in_points_or_device_pixels() -> None:
    assert linux._mismatch(BOUNDS, 100, 50, 900, 700) == 0
    assert linux._mismatch(BOUNDS, 200, 100, 1800, 1400) == 0, "device scale factor 2"
    assert linux._mismatch(BOUNDS, 0, 0, 300, 200) > linux.MAX_MISMATCH_PX
