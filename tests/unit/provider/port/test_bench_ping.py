"""bench_ping.py: the bench-only ping hook is off by default and times `ping` round trips."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from typing import Any

import pytest

from native_host.protocol.native import BROWSER_FRAME_ADAPTER
from native_host.provider.port import bench_ping
from native_host.provider.port.bridge import Bridge
from tests.support.waiting import until


def echo_bridge() -> tuple[Bridge, list[dict[str, Any]]]:
    """A Bridge whose fake worker answers every request `result {}` at once; and what it sent."""
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        result = {"pageMs": 0.25} if message.get("page") else {}
        frame = BROWSER_FRAME_ADAPTER.validate_python(
            {"type": "result", "id": message["id"], "result": result}
        )
        asyncio.get_running_loop().call_soon(bridge.handle_reply, frame)

    bridge = Bridge(send)
    return bridge, sent


@pytest.mark.parametrize("raw", [None, "", "0", "-3", "ten"])
def test_the_hook_is_off_unless_the_env_names_a_positive_count(
    raw: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if raw is None:
        monkeypatch.delenv(bench_ping.BENCH_PINGS_ENV, raising=False)
    else:
        monkeypatch.setenv(bench_ping.BENCH_PINGS_ENV, raw)
    assert bench_ping.pings_per_round() == 0


async def test_a_round_sends_sequential_pings_and_returns_their_times() -> None:
    bridge, sent = echo_bridge()
    times = await bench_ping.ping_round(bridge, 5)
    assert [m["type"] for m in sent] == ["ping"] * 5
    assert len({m["id"] for m in sent}) == 5
    assert len(times) == 5 and all(0 <= t < 1000 for t in times)


@pytest.mark.skipif(sys.platform == "win32", reason="no SIGUSR1")
async def test_sigusr1_logs_one_line_of_figures(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(bench_ping.BENCH_PINGS_ENV, "3")
    bridge, _ = echo_bridge()
    tasks: set[asyncio.Task[None]] = set()
    caplog.set_level(logging.INFO, logger="native_host.provider.port.bench_ping")
    assert bench_ping.install(bridge, tasks)
    try:
        os.kill(os.getpid(), signal.SIGUSR1)
        await until(lambda: any("page ping" in r.getMessage() for r in caplog.records), timeout_s=2,
                    message="the page ping line")
    finally:
        asyncio.get_running_loop().remove_signal_handler(signal.SIGUSR1)
    line = next(r.getMessage() for r in caplog.records if "round trips" in r.getMessage())
    assert line.startswith("bench ping: 3 round trips (ms): ")
    assert len(line.split(": ")[-1].split()) == 3
    page = next(r.getMessage() for r in caplog.records if "page ping" in r.getMessage())
    assert page == "bench page ping: 3 worker-page round trips (ms): 0.250 0.250 0.250"


async def test_a_page_round_reports_the_workers_figures_and_minus_one_without_a_page() -> None:
    answers = iter([{"pageMs": 0.4}, {"pageMs": None}])
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        answer = {"type": "result", "id": message["id"], "result": next(answers)}
        frame = BROWSER_FRAME_ADAPTER.validate_python(answer)
        asyncio.get_running_loop().call_soon(bridge.handle_reply, frame)

    bridge = Bridge(send)
    assert await bench_ping.page_ping_round(bridge, 2) == [0.4, -1.0]
    assert all(m["type"] == "ping" and m["page"] is True for m in sent)
