"""follower_link.py: a standby host answers the provider's requests over the hand-off with its own
extension's answers, in the bytes it always sent (design.md §3)."""

from __future__ import annotations

from pathlib import Path

from native_host.provider.profiles.follower_link import FollowerLink
from tests.support.profiles import FakeExtension, RecordingConnection, window


async def test_the_follower_answers_with_the_bytes_it_always_sent(tmp_path: Path) -> None:
    link = FollowerLink(tmp_path / "none.json", "B", FakeExtension(window("win-1")), deadline_ms=3000)
    connection = RecordingConnection()
    await link._answer(connection, b'{"type":"current","id":"p-4","deadlineMs":2800}')  # type: ignore[arg-type]
    await link._answer(connection, b'{"callId":"p-9","type":"tools.cancel","id":"p-5","deadlineMs":2000}')  # type: ignore[arg-type]
    await link._answer(connection, b'{"type":"nope","id":"p-6"}')  # type: ignore[arg-type]
    assert connection.sent == [
        b'{"type":"result","id":"p-4","result":{"root":{"id":"app","role":"Application","children":'
        b'[{"id":"win-1","role":"Window","children":[{"id":"tab-1","role":"Page"}]}]},"windowFocused":false}}',
        b'{"type":"result","id":"p-5","result":{"cancelled":false}}',
    ]
