"""HostClient (native_host/host/client.py, design.md §7): discovery, session and id book together, the
way a host that keeps running uses them, against a real fake provider that restarts and quits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from native_host import host as host_client
from native_host.errors import ProviderRejected
from native_host.host import HostClient
from tests.support.fake_provider import BUNDLE, fake_provider, same_bundle


async def test_host_client_end_to_end_and_old_ids_are_not_valid_for_a_new_instance(
    providers_folder: Path,
) -> None:
    client = HostClient(identify=same_bundle, front_pid=lambda: None)
    async with fake_provider() as p:
        p.write(providers_folder)
        first = await client.current()
        assert first.answer.instance == "inst-A"
        assert client.ids.is_known("sel-1")
        assert client.owner_of("sel-1").instance == "inst-A"

        # The provider restarts: same pid, new instance, new descriptor.
        p.instance, p.selected_id = "inst-B", "sel-7"
        p.write(providers_folder)
        client.providers()
        assert not client.ids.is_known("sel-1"), "ids of the old instance must be gone"
        with pytest.raises(ProviderRejected) as info:
            client.owner_of("sel-1")
        assert info.value.reason == "unknown_id"

        second = await client.current()
        assert second.answer.instance == "inst-B"
        assert client.ids.owner_of("sel-7") == host_client.IdOwner(os.getpid(), "inst-B", BUNDLE)
        assert client.ids.owner_of("app") == host_client.IdOwner(os.getpid(), "inst-B", BUNDLE)

    # The provider quits: its descriptor stays behind but nobody listens any more.
    assert not client.providers()[0].usable
    assert not client.ids.is_known("sel-7")
