"""`location` does not depend on the device scale factor: at DSF 2 (`--force-device-scale-factor=2`)
the rects in points are the same as at DSF 1 (design.md §1.2: points, not pixels). Also drives the
`webctx locate` command line against the real provider."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from native_host.host import HostClient
from tests.e2e.conftest import launched_browser
from tests.e2e.gestures import select_element_text
from tests.e2e.tree import selected_texts

WINDOW_X, WINDOW_Y = 200, 120
HEADLESS_TOOLBAR_PT = 87
"""Headless Chromium's viewport sits this far below the window's top (chromium-recipe.md §3)."""


async def test_rects_are_points_at_device_scale_factor_2_and_webctx_locate_prints_them(
    tmp_path: Path, page_server: str
) -> None:
    args = (
        "--force-device-scale-factor=2",
        f"--window-position={WINDOW_X},{WINDOW_Y}",
        "--window-size=800,600",
    )
    async with launched_browser(tmp_path / "udd", extra_args=args, real_window=True) as browser:
        descriptor = await browser.descriptor()
        page = await browser.new_page(f"{page_server}/pointing.html")
        assert await page.evaluate("() => devicePixelRatio") == 2
        await select_element_text(page, "line1")  # a real click and Shift+click
        width = await page.evaluate(
            "() => { const r = document.createRange();"
            " r.selectNodeContents(document.getElementById('line1'));"
            " return r.getBoundingClientRect().width; }"
        )
        await asyncio.sleep(0.06)
        host = HostClient(folder=browser.providers, timeout_s=10.0)
        [text] = selected_texts((await host.current(descriptor.pid)).raw)
        where = (await host.location(text["id"])).to_wire()
        [rect] = where["rects"]
        expected = {"x": WINDOW_X + 100, "y": WINDOW_Y + HEADLESS_TOOLBAR_PT + 50, "w": width, "h": 19}
        assert all(abs(rect[k] - expected[k]) <= 1 for k in expected), (rect, expected)

        webctx = Path(sys.executable).with_name("webctx")
        proc = await asyncio.create_subprocess_exec(
            str(webctx), "locate", text["id"], "--pid", str(descriptor.pid), "--json",
            "--instance", descriptor.instance,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=dict(os.environ),
        )  # fmt: skip
        async with asyncio.timeout(30):
            out, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()
        assert json.loads(out) == where
        proc = await asyncio.create_subprocess_exec(
            str(webctx), "locate", text["id"], "--pid", str(descriptor.pid), "--instance", "another-run",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=dict(os.environ),
        )  # fmt: skip
        async with asyncio.timeout(30):
            out, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()
        assert out.decode().startswith(f"{text['id']}: gone")
