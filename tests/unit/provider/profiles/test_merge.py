"""merge.py: every profile's windows under the provider's Application, follower ids prefixed, one
focus path (design.md §3 "Several profiles, one provider")."""

from __future__ import annotations

from native_host.provider.profiles.merge import merge_windows, prefix_ids
from tests.support.profiles import window


def test_follower_ids_are_prefixed_all_the_way_down() -> None:
    assert prefix_ids(window("win-1"), "f2-") == {
        "id": "f2-win-1", "role": "Window", "children": [{"id": "f2-tab-1", "role": "Page"}]
    }


def test_merging_keeps_the_providers_focus_path_when_no_profile_has_focus() -> None:
    own = {"root": {"id": "app", "role": "Application", "children": [window("win-1", focused=True)]}}
    merged = merge_windows(own, [([prefix_ids(window("win-1", focused=True), "f1-")], False)])
    children = merged["root"]["children"]
    assert [w["id"] for w in children] == ["win-1", "f1-win-1"]
    assert children[0]["focused"] and "focused" not in children[1]
    assert "focused" not in children[1]["children"][0]


def test_the_profile_whose_window_really_has_focus_keeps_the_focus_path() -> None:
    own = {
        "root": {"id": "app", "role": "Application", "children": [window("win-1", focused=True)]},
        "windowFocused": False,
    }
    merged = merge_windows(
        own, [([window("f1-win-1", focused=True)], False), ([window("f2-win-1", focused=True)], True)]
    )
    focused = [w["id"] for w in merged["root"]["children"] if w.get("focused")]
    assert focused == ["f2-win-1"]
    assert "focused" not in merged["root"]["children"][0]["children"][0]
