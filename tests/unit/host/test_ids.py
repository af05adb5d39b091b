"""IdBook (native_host/host/ids.py, design.md §7): which provider instance issued each id, and a
restarted provider's ids forgotten."""

from __future__ import annotations

from native_host import host as host_client
from native_host.host import IdBook
from native_host.protocol.answers import CurrentAnswer
from tests.support.fake_provider import BUNDLE, FakeProvider, tree


def test_id_book_keeps_ids_per_provider_and_forgets_a_restarted_one() -> None:
    book = IdBook()
    a = FakeProvider(port=1, path="/").descriptor(pid=100, instance="i1")
    b = FakeProvider(port=2, path="/").descriptor(pid=200, instance="j1")
    book.record(
        a, CurrentAnswer.model_validate({"protocol": "0.2.0", "instance": "i1", "root": tree("sel-23")})
    )
    book.record(
        b, CurrentAnswer.model_validate({"protocol": "0.2.0", "instance": "j1", "root": tree("sel-23")})
    )
    assert book.owner_of("sel-23", pid=100) == host_client.IdOwner(100, "i1", BUNDLE)
    assert book.owner_of("sel-23") == host_client.IdOwner(200, "j1", BUNDLE)  # the latest issuer
    a2 = a.model_copy(update={"instance": "i2"})
    book.record(
        a2, CurrentAnswer.model_validate({"protocol": "0.2.0", "instance": "i2", "root": tree("sel-1")})
    )
    assert not book.is_known("sel-23", pid=100)
    assert book.is_known("sel-23", pid=200)
    assert book.is_known("sel-1", pid=100)
