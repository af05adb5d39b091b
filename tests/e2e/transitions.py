"""What lifecycle tests watch while a browser goes through a transition (issue "One provider per
browser, whatever happens"; design.md §3, §7).

```
DesktopCaller     a desktop host asking `current` in a loop (reference host, real HTTP, a time
                  limit per call): every outcome is a checked answer or a clean WebctxError, and
                  no call takes longer than its limit allows
DescriptorWatch   samples the providers folder every SAMPLE_S: how many descriptors name this
                  browser at once, and whether one was ever seen naming a listener already gone
```
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from playwright.async_api import BrowserContext, Worker

from native_host.errors import WebctxError
from native_host.host import HostClient
from native_host.protocol.processes import process_alive
from tests.support.waiting import until

SAMPLE_S: Final = 0.02
"""How often DescriptorWatch looks at the providers folder, in seconds."""

CALL_LIMIT_S: Final = 3.0
"""The desktop host's own time limit per connection and per call, in seconds."""

CALL_SLACK_S: Final = 1.5
"""What a call may take beyond `2 * CALL_LIMIT_S` (connect + call), in seconds, before it counts as
a hang: discovery, descriptor checks and closing the session, on a busy 2-core machine."""


@dataclass
class CallOutcome:
    """One `current` call: when it started (monotonic s), how long it took, and either the
    instance that answered or the error code."""

    started: float
    seconds: float
    instance: str | None = None
    error: str | None = None
    unexpected: str | None = None


@dataclass
class DesktopCaller:
    """Calls `current` on the provider in `folder` back to back (a short pause between calls)."""

    folder: Path
    limit_s: float = CALL_LIMIT_S
    pause_s: float = 0.05
    outcomes: list[CallOutcome] = field(default_factory=list)

    async def _loop(self, stop: asyncio.Event) -> None:
        host = HostClient(folder=self.folder, timeout_s=self.limit_s)
        while not stop.is_set():
            started = time.monotonic()
            outcome = CallOutcome(started, 0.0)
            try:
                result = await host.current()
                outcome.instance = result.answer.instance  # == its descriptor's (check_answer)
            except WebctxError as exc:
                outcome.error = exc.code
            except Exception as exc:  # anything else is a bug: a desktop host would crash
                outcome.unexpected = f"{type(exc).__name__}: {exc}"
            outcome.seconds = time.monotonic() - started
            self.outcomes.append(outcome)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.pause_s)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[DesktopCaller]:
        """Call in the background for the duration of the `async with` block."""
        stop = asyncio.Event()
        task = asyncio.create_task(self._loop(stop))
        try:
            yield self
        finally:
            stop.set()
            async with asyncio.timeout(2 * self.limit_s + CALL_SLACK_S + 1):
                await task

    def check(self) -> None:
        """Assert every call ended cleanly and within its limit."""
        assert self.outcomes, "the desktop host made no call"
        unexpected = [o.unexpected for o in self.outcomes if o.unexpected]
        assert not unexpected, f"calls failed with non-webctx errors: {unexpected[:3]}"
        bound = 2 * self.limit_s + CALL_SLACK_S
        slow = [round(o.seconds, 2) for o in self.outcomes if o.seconds > bound]
        assert not slow, f"calls took longer than {bound} s: {slow}"

    @property
    def answered(self) -> list[CallOutcome]:
        return [o for o in self.outcomes if o.instance is not None]

    async def answered_by(self, instance: str, *, count: int = 1, after: float = 0.0) -> None:
        """Wait until `count` calls started at or after `after` (monotonic s) were answered by
        `instance`, the last call among them (bounded: AssertionError after 4 call limits)."""

        def done() -> bool:
            by = [o for o in self.answered if o.started >= after]
            return len([o for o in by if o.instance == instance]) >= count and by[-1].instance == instance

        await until(done, timeout_s=4 * self.limit_s, message=f"{count} answers from {instance}")

    def summary(self) -> str:
        errors: dict[str, int] = {}
        for o in self.outcomes:
            if o.error:
                errors[o.error] = errors.get(o.error, 0) + 1
        worst = max((o.seconds for o in self.outcomes), default=0.0)
        answered = len(self.answered)
        return f"{len(self.outcomes)} calls, {answered} answered, errors {errors}, slowest {worst:.2f} s"


@dataclass
class DescriptorWatch:
    """Samples the descriptors of browser `pid` in `folder` (by file name, `*-<pid>.json`)."""

    folder: Path
    pid: int
    most_at_once: int = 0
    dead_listener_seen: list[tuple[str, int]] = field(default_factory=list)
    """(instance, listenerPid) of descriptors seen while their listener was gone."""
    instances: list[str] = field(default_factory=list)
    """Every instance seen published, in order."""

    def sample(self) -> None:
        try:
            paths = [p for p in self.folder.glob(f"*-{self.pid}.json")]
        except OSError:
            paths = []
        self.most_at_once = max(self.most_at_once, len(paths))
        for path in paths:
            try:
                data = json.loads(path.read_bytes())
            except (OSError, ValueError):
                continue
            instance, listener = data.get("instance"), data.get("listenerPid")
            if instance and (not self.instances or self.instances[-1] != instance):
                self.instances.append(instance)
            if isinstance(listener, int) and not process_alive(listener):
                # Re-read: the file may have been replaced between the read and the check.
                with contextlib.suppress(OSError, ValueError):
                    if json.loads(path.read_bytes()).get("instance") == instance:
                        self.dead_listener_seen.append((str(instance), listener))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[DescriptorWatch]:
        stop = asyncio.Event()

        async def loop() -> None:
            while not stop.is_set():
                self.sample()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), SAMPLE_S)

        task = asyncio.create_task(loop())
        try:
            yield self
        finally:
            stop.set()
            await task


async def service_worker_target_ids(context: BrowserContext) -> list[str]:
    """DevTools target ids of the running extension service workers (browser-level CDP)."""
    assert context.browser is not None
    session = await context.browser.new_browser_cdp_session()
    try:
        targets = await session.send("Target.getTargets")
        return [t["targetId"] for t in targets["targetInfos"] if t["type"] == "service_worker"]
    finally:
        await session.detach()


async def stop_service_worker(context: BrowserContext) -> None:
    """Stop the extension's service worker as the browser does when it idles (DevTools
    `Target.closeTarget` on its target; chromium-recipe.md §4.3)."""
    assert context.browser is not None
    session = await context.browser.new_browser_cdp_session()
    try:
        targets = await session.send("Target.getTargets")
        workers = [t["targetId"] for t in targets["targetInfos"] if t["type"] == "service_worker"]
        assert workers, "no service worker is running"
        for target_id in workers:
            await session.send("Target.closeTarget", {"targetId": target_id})
    finally:
        await session.detach()


async def next_worker(context: BrowserContext, old: Worker | None, *, timeout_s: float = 10.0) -> Worker:
    """The extension's service worker once a new one (not `old`) runs."""
    async with asyncio.timeout(timeout_s):
        while True:
            for worker in context.service_workers:
                if worker is not old:
                    return worker
            await asyncio.sleep(0.05)
