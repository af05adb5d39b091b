"""Which provider issued an id (concepts page, "Keep the provider with the id"; design.md §7).

An id only means something to the provider that issued it, and only while that provider runs the
same instance: two providers may both issue `sel-23`, and a provider that restarted has forgotten
its old ids. `IdBook` keeps `(provider pid, instance)` for every id a host has seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from native_host.host.discovery import ProviderInfo
from native_host.protocol.answers import CurrentAnswer, Element
from native_host.protocol.descriptor import Descriptor

__all__ = ["IdBook", "IdOwner", "iter_elements"]


@dataclass(frozen=True)
class IdOwner:
    """Who issued an id: the provider's pid and bundle id, and the instance it was running."""

    pid: int
    instance: str
    bundle_id: str


def iter_elements(root: Element) -> Iterator[Element]:
    """Every element of the tree under (and including) `root`, depth first, in document order."""
    stack = [root]
    while stack:
        element = stack.pop()
        yield element
        stack.extend(reversed(element.children or []))


@dataclass
class IdBook:
    """Remembers which (provider pid, instance) issued every id seen (concepts page, "What a host must do").

    Two providers may both issue `sel-23`, so ids are kept per provider pid. When a provider shows
    up with a new instance (it restarted) or is gone, its old ids are forgotten: `is_known` turns
    false and `owner_of` returns None for them.
    """

    _owners: dict[str, dict[int, IdOwner]] = field(default_factory=dict)

    def record(self, descriptor: Descriptor, answer: CurrentAnswer) -> int:
        """Note every id in `answer.root` as issued by `(descriptor.pid, answer.instance)`; forget the
        ids of any other instance of that pid. Returns how many ids the answer held."""
        self.forget(descriptor.pid, keep_instance=answer.instance)
        owner = IdOwner(descriptor.pid, answer.instance, descriptor.bundle_id)
        count = 0
        for element in iter_elements(answer.root):
            per_pid = self._owners.setdefault(element.id, {})
            per_pid.pop(owner.pid, None)  # re-insert so the latest issuer is last
            per_pid[owner.pid] = owner
            count += 1
        return count

    def forget(self, pid: int, *, keep_instance: str | None = None) -> None:
        """Drop the ids issued by provider `pid`, except those of `keep_instance` when given."""
        for id_ in list(self._owners):
            per_pid = self._owners[id_]
            owner = per_pid.get(pid)
            if owner is not None and owner.instance != keep_instance:
                del per_pid[pid]
            if not per_pid:
                del self._owners[id_]

    def refresh(self, providers: Iterable[ProviderInfo]) -> None:
        """Forget ids whose provider no longer has a usable descriptor with the same instance
        (it quit, restarted, or now fails a check)."""
        live = {
            (p.descriptor.pid, p.descriptor.instance)
            for p in providers
            if p.usable and p.descriptor is not None
        }
        for pid, instance in {(o.pid, o.instance) for per in self._owners.values() for o in per.values()}:
            if (pid, instance) not in live:
                self.forget(pid, keep_instance=None)

    def owner_of(self, id_: str, *, pid: int | None = None) -> IdOwner | None:
        """The provider that issued `id_` (from provider `pid` when given, else the latest issuer)."""
        per_pid = self._owners.get(id_)
        if not per_pid:
            return None
        if pid is not None:
            return per_pid.get(pid)
        return next(reversed(per_pid.values()))

    def is_known(self, id_: str, *, pid: int | None = None) -> bool:
        """True when `id_` was issued by a provider whose instance has not changed since."""
        return self.owner_of(id_, pid=pid) is not None

    def __len__(self) -> int:
        return sum(len(per) for per in self._owners.values())

