"""The conformance kit against webctx's real browser provider: every rule passes (issue #6).

`location` is offered, so its rules run against the real ids; warnings (latency on a busy machine) are
printed, not failed. The same run goes through the `webctx conformance` command line.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from native_host.conformance import check_provider
from tests.e2e.harness import RunningBrowser, select_text


@pytest.mark.rule("descriptor.listener_process")
@pytest.mark.rule("current.focus_path")
@pytest.mark.rule("location.shape")
async def test_the_real_browser_provider_conforms(browser: RunningBrowser, page_server: str) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    await select_text(page, "para")
    await asyncio.sleep(0.05)  # design.md §4 freshness
    [path] = [
        p for p in browser.providers.glob("*.json") if json.loads(p.read_text())["pid"] == descriptor.pid
    ]

    report = await check_provider(path, timeout_s=10.0)
    failures = [r for r in report.results if r.status == "fail"]
    assert failures == [], failures
    for result in report.results:
        if result.status == "warn":
            print(f"conformance warning: {result.rule}: {result.message}")
    assert report.result("descriptor.bundle_id").status == "pass"
    assert report.result("current.focus_path").status == "pass"
    assert report.result("location.shape").status == "pass"
    assert report.result("location.unknown_id").status == "pass"
    assert report.result("location.malformed_id").status == "pass"
    assert report.result("location.foreign_id").status == "pass"

    webctx = Path(sys.executable).with_name("webctx")
    proc = await asyncio.create_subprocess_exec(
        str(webctx),
        "conformance",
        "--pid",
        str(descriptor.pid),
        "--json",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    data = json.loads(out)
    assert data["ok"] is True and data["counts"]["fail"] == 0
    assert data["descriptor"] == str(path)
