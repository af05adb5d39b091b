"""`resources/read` of a page's text and screenshot, and what the links cost `current`.

Over 400 lines: one bench with two phases that share the browser, its set-up and the printing.

What it measures (ms; median and p99 by nearest rank, bench/stats.py)
--------------------------------------------------------------------
One headless Chromium with the real extension and native host (bench/browser.py, as `webctx
demo` starts it), page text and screenshots switched on in the extension's settings, three tabs:
the bench's usual `tests/pages/index.html`, a **40-paragraph article** (headings, a list, a
table, links, a site header and footer around it) in the active tab, and the **200,000-element
page** of bench/page_load.py (4.9 MB, chains of 100 nested divs) in a background tab.
Playwright connects over CDP only to open the tabs and switch settings, never while anything is
timed (an attached CDP client slows the browser's own messaging).

Phase 1, reads. The reference client (`native_host.host.open_session`: real HTTP on 127.0.0.1,
the real bearer token; MCP 2026-07-28, `--legacy` for 2025-11-25) calls, in alternating blocks:

- **floor**: `current` on bench/floor.py (the same MCP stack answering a constant 142-byte tree:
  the floor every bench here is measured against);
- **current**: `current` on the browser (three tabs, their links in the tree);
- **read floor (text / screenshot)**: `resources/read` on the floor server, whose requester answers
  `page.read` at once with the browser's own reply (captured just before): what the MCP stack
  costs to carry that answer, the same-size floor of a read;
- **article text**, **200,000-element text**, **screenshot** (the article, the active tab):
  `resources/read` of the article's links in `current`, and of the huge page's text by its URI
  (`current` leaves the links out of background Pages, protocol/resources.py
  `without_background_links`; the bench builds it from the Page id with `format_page_uri`, the
  rule `resources/list` follows). Screenshots start at least SHOT_GAP_S apart
  (Chromium lets an extension capture twice a second; closer reads would time the worker's pacing).
- **ping**: the native-messaging floor (native host ↔ service worker, answered at once;
  `WEBCTX_BENCH_PINGS`, bench/host_log.py).

`port RTT` is the native host's own `page.read` request → reply time (its log): the browser's
share of a read (injection, extraction or capture, scaling, base64, native messaging). `content`:
the Markdown's UTF-8 bytes or the decoded image's bytes; `answer`: the read's JSON as the SDK
carries it. `CPU ms/call` (client / server / browser, bench/interleaved.py CpuMeter, read per
call): what a read costs the reference client, the native host (or floor server) and the browser's
other processes; a busy machine inflates it less than the wall-clock times.

Phase 2, `current` with and without the links ("`current` itself stays as small and
fast as today"). The same browser, and with `--tabs N` (default 100) a second one with N tabs of
index.html: settings switched over CDP to text links off and screenshots off (today's tree), text
links on (the default), text and screenshot links on (as shipped: only the visible Pages carry
them), in `--rounds` rounds (default 5); after each switch, blocks of the floor, a **same-size
floor** (bench/floor.py answering that setting's tree, captured at its first switch, as
bench/current_latency.py does) and `current` alternate. Reported
per setting: `current`'s median, x floor, x same (webctx's own work: ~1 when the links add bytes,
not work), and the tree's JSON bytes (the answer carries it twice: `structuredContent` and the
text block).

HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a temporary folder; only processes this script
started are ended, by pid. Needs the test extras (`./scripts/setup.sh --with-tests`).

    .venv/bin/python bench/page_read.py [--runs 50] [--huge-runs 10] [--shots 20] [--tabs 100]
                                        [--current-calls 100] [--rounds 5] [--legacy] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
import json
import math
import os
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import host_log  # noqa: E402
from bench.against import run_main  # noqa: E402
from bench.browser import EXTENSION_ID, LaunchedBrowser, cdp_browser, settle, walk  # noqa: E402
from bench.environment import isolate, load_average, progress  # noqa: E402
from bench.floor import floor_provider  # noqa: E402
from bench.interleaved import CpuMeter  # noqa: E402
from bench.page_load import big_page  # noqa: E402
from bench.stats import Summary, median_ms, ratio  # noqa: E402
from tests.support.pages import served_pages  # noqa: E402

if TYPE_CHECKING:
    from native_host.host import ConnectMode, ProviderSession
    from native_host.protocol.descriptor import Descriptor

BLOCK_CALLS: Final = 10
WARMUP_CALLS: Final = 5
SHOT_GAP_S: Final = 0.6
"""Least time between the starts of two screenshot reads: Chromium lets an extension capture twice
per second (MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND), and the worker paces its captures to two per
1.1 s (service_worker/page_read.js CapturePacer); closer reads would time the pacer's wait."""
READ_TIMEOUT_S: Final = 30.0
"""How long one timed call may take before the bench gives up, in seconds."""
LINKS_TIMEOUT_S: Final = 60.0
"""How long the tree may take to show (or drop) the links after a settings switch, in seconds."""
ARTICLE_TITLE: Final = "Tidal mills of the northern coast"
HUGE_TITLE: Final = "huge page"
TEXT_MIME: Final = "text/markdown"

SETTINGS_JS: Final = """async (patch) => {
  const {settings} = await chrome.storage.local.get('settings');
  await chrome.storage.local.set({settings: {...(settings ?? {}), ...patch}});
}"""
"""Run in the extension's service worker: merge `patch` into the stored settings (settings.js)."""
SETTINGS: Final[dict[str, dict[str, bool]]] = {
    "links off (today's tree)": {"pageText": False, "screenshots": False},
    "text links (the default)": {"pageText": True, "screenshots": False},
    "text + screenshot links": {"pageText": True, "screenshots": True},
}


# ---------------------------------------------------------------------------------------------
# Pages


ARTICLE_WORDS: Final = (
    "tide mill wheel pond sluice gate miller grain flour river estuary salt marsh stone oak beam shaft "
    "gear water flow ebb flood harbour village record century survey engineer restored working museum "
    "visitors season storm repair timber brick channel basin"
)


def article_page(paragraphs: int, seed: int = 16) -> str:
    """A news-style article: site header and nav, an h1, `paragraphs` paragraphs of 6-8 sentences
    with a subheading every ten, one list, one table, links, a footer. Deterministic."""
    rng = random.Random(seed)
    words = ARTICLE_WORDS.split()

    def sentence() -> str:
        chosen = [rng.choice(words) for _ in range(rng.randint(8, 15))]
        return " ".join(chosen).capitalize() + "."

    body = []
    for i in range(paragraphs):
        if i % 10 == 0:
            body.append(f"<h2>Part {i // 10 + 1}: the {rng.choice(words)} and the {rng.choice(words)}</h2>")
        text = " ".join(sentence() for _ in range(rng.randint(6, 8)))
        if i % 7 == 3:
            text += f' See <a href="https://example.org/mills/{i}">the survey notes</a>.'
        body.append(f"<p>{text}</p>")
        if i == 12:
            body.append("<ul>" + "".join(f"<li>{sentence()}</li>" for _ in range(5)) + "</ul>")
        if i == 25:
            cells = [(f"Mill {n}", 1600 + 17 * n, rng.choice(words)) for n in range(6)]
            rows = "".join(f"<tr><td>{a}</td><td>{b}</td><td>{c}</td></tr>" for a, b, c in cells)
            body.append(f"<table><tr><th>Name</th><th>Built</th><th>State</th></tr>{rows}</table>")
    nav = "".join(f'<a href="/s/{n}">Section {n}</a> ' for n in range(12))
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{ARTICLE_TITLE}</title></head>"
        f"<body><header><nav>{nav}</nav></header><main><article><h1>{ARTICLE_TITLE}</h1>"
        f"<p class=byline>By A. Writer, 1 December 2026</p>{''.join(body)}</article></main>"
        "<footer><p>Copyright the coast society. <a href='/about'>About</a></p></footer></body></html>"
    )


# ---------------------------------------------------------------------------------------------
# The tree's links, and switching them over CDP


def page_links(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every Page of a `current` answer by id: `{id: {"page": element, "text": uri | None,
    "screenshot": uri | None}}` from its `resource_link` content blocks."""
    found: dict[str, dict[str, Any]] = {}
    for page in walk(raw.get("root") or {}):
        if page.get("role") != "Page":
            continue
        links: dict[str, Any] = {"page": page, "text": None, "screenshot": None}
        for block in page.get("content") or []:
            if block.get("type") == "resource_link":
                kind = "text" if block.get("mimeType") == TEXT_MIME else "screenshot"
                links[kind] = block["uri"]
        found[str(page.get("id"))] = links
    return found


def titled(raw: Mapping[str, Any], title: str) -> dict[str, Any]:
    """`page_links` of the first Page titled `title` (`{}` when none is)."""
    return next((p for p in page_links(raw).values() if p["page"].get("title") == title), {})


def link_counts(raw: Mapping[str, Any]) -> tuple[int, int]:
    """How many text and screenshot links the tree carries (only visible Pages have them)."""
    pages = page_links(raw).values()
    return sum(1 for p in pages if p["text"]), sum(1 for p in pages if p["screenshot"])


def is_ours(url: str) -> bool:
    """Whether `url` is in the webctx extension (its service worker's script)."""
    return url.startswith(f"chrome-extension://{EXTENSION_ID}/")


async def in_worker(running: LaunchedBrowser, js: str, arg: Any = None) -> Any:
    """Evaluate `js` (a function of one argument) in the extension's service worker over CDP, then
    disconnect (the browser and its tabs stay)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{running.devtools_port}")
        try:
            async with asyncio.timeout(10):  # the worker's target may be attached a moment later
                while not (workers := [w for w in browser.contexts[0].service_workers if is_ours(w.url)]):
                    await asyncio.sleep(0.05)
            return await workers[0].evaluate(js, arg)
        finally:
            await browser.close()  # over CDP: disconnects only


async def open_tabs(running: LaunchedBrowser, base: str) -> None:
    """Open the huge page in a background tab and the article in the active one, over CDP."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(f"http://127.0.0.1:{running.devtools_port}")
        context = browser.contexts[0]
        huge = await context.new_page()
        await huge.goto(f"{base}/huge.html", timeout=120_000)
        article = await context.new_page()
        await article.goto(f"{base}/article.html")
        await article.bring_to_front()
        await browser.close()


async def tree_until(
    descriptor: Descriptor, done: Callable[[Mapping[str, Any]], bool], what: str
) -> dict[str, Any]:
    """Ask `current` until `done(answer)`; the answer. Raises RuntimeError after LINKS_TIMEOUT_S."""
    from native_host.host import open_session

    deadline = time.monotonic() + LINKS_TIMEOUT_S
    raw: dict[str, Any] = {}
    async with open_session(descriptor, timeout_s=READ_TIMEOUT_S) as session:
        while time.monotonic() < deadline:
            raw = (await session.current()).raw
            if done(raw):
                return raw
            await asyncio.sleep(0.2)
    texts, shots = link_counts(raw)
    seen = f"{len(page_links(raw))} Pages, {texts} text and {shots} screenshot links"
    raise RuntimeError(f"The tree did not show {what} within {LINKS_TIMEOUT_S:g} s (last: {seen}).")


async def switch(running: LaunchedBrowser, patch: Mapping[str, bool]) -> dict[str, Any]:
    """Switch the settings to `patch`, then wait until the tree's links follow: a text link on
    every visible web Page (or none; background Pages carry none, without_background_links), a
    screenshot link on an active tab (or none)."""
    await in_worker(running, SETTINGS_JS, dict(patch))

    def follows(raw: Mapping[str, Any]) -> bool:
        web = sum(
            1 for p in page_links(raw).values()
            if str(p["page"].get("url", "")).startswith("http") and p["page"].get("visible") is not False
        )  # fmt: skip
        texts, shots = link_counts(raw)
        return texts == (web if patch["pageText"] else 0) and (shots > 0) == patch["screenshots"]

    raw = await tree_until(running.descriptor, follows, f"the links of {dict(patch)}")
    await asyncio.sleep(1.0)  # let the browser settle after the CDP client left
    return raw


def tree_bytes(raw: Mapping[str, Any]) -> int:
    """The `current` answer's JSON size, as bench/interleaved.py counts it."""
    return len(json.dumps(raw, ensure_ascii=False, separators=(",", ":")).encode())


# ---------------------------------------------------------------------------------------------
# Reads


async def timed(call: Callable[[], Awaitable[Any]], out: list[float]) -> Any:
    """Await `call()` (at most READ_TIMEOUT_S), append its duration in seconds to `out`; its result."""
    async with asyncio.timeout(READ_TIMEOUT_S):
        start = time.perf_counter()
        result = await call()
        out.append(time.perf_counter() - start)
    return result


def read_sizes(result: Any) -> dict[str, Any]:
    """What a `resources/read` result holds: content bytes (Markdown UTF-8 / decoded image), the
    answer's JSON bytes, its mimeType and `_meta`."""
    [item] = result.contents
    content = len(item.text.encode()) if hasattr(item, "text") else len(base64.b64decode(item.blob))
    answer = len(result.model_dump_json(by_alias=True, exclude_none=True).encode())
    meta = item.meta or {}
    return {"content_bytes": content, "answer_bytes": answer, "mimeType": item.mime_type, "meta": meta}


def page_read_reply(result: Any, page: Mapping[str, Any]) -> dict[str, Any]:
    """The worker's `page.read` reply (design16.md) a read result was made from, for the floor."""
    [item] = result.contents
    meta = dict(item.meta or {})
    if hasattr(item, "text"):
        return {
            "kind": "text", "markdown": item.text, "truncated": bool(meta.get("truncated")),
            "bytes": meta.get("bytes", len(item.text.encode())), "source": meta.get("source", "readability"),
            "title": page.get("title", ""), "url": page.get("url", ""),
        }  # fmt: skip
    return {
        "kind": "screenshot", "mimeType": item.mime_type, "data": item.blob,
        **{k: meta.get(k) for k in ("width", "height", "devicePixelRatio", "scale")},
    }  # fmt: skip


def row(name: str, seconds: list[float], floor: list[float], **extra: Any) -> dict[str, Any]:
    """A printed row: calls, median and p99 (ms), x the 142-byte floor, and `extra` fields."""
    if not seconds:
        return {"row": name, "calls": 0, **extra}
    timed_ = Summary.of_seconds(seconds)
    return {
        "row": name, "calls": timed_.n, "median_ms": round(timed_.median, 2), "p99_ms": round(timed_.p99, 2),
        "x_floor": ratio(timed_.median, median_ms(floor)) if floor else None, **extra,
    }  # fmt: skip


ROW_NAMES: Final = {
    "floor": "floor: current, 142 B",
    "current": "current (3 tabs, links as shipped)",
    "ftext": "read floor: text (same size)",
    "article": "article text (40 paragraphs)",
    "huge": "200,000-element page text",
    "fshot": "read floor: screenshot (same size)",
    "shot": "screenshot (article, active tab)",
    "ping": "native messaging ping",
}
"""Phase 1's rows, by key, in print order."""
READS: Final = ("article", "huge", "shot")
"""The browser's reads (the others are floors or `current`)."""


@dataclass
class Timed:
    """Phase 1's timed calls: seconds per row key, the native host's `page.read` round trips
    (ms, its log), the `current` tree's JSON bytes, and which first reads failed (key → why)."""

    times: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in ROW_NAMES})
    rtts: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in READS})
    tree_bytes: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    cpu: dict[str, CpuMeter] = field(default_factory=dict)
    """CPU per read kind (browser reads and read floors), summed over its calls."""


async def try_read(session: ProviderSession, key: str, uri: str | None, out: Timed) -> Any:
    """One untimed `resources/read` of `uri`; its result, or None after noting why in `out.failed`."""
    if uri is None:
        return None
    try:
        return await session.client.read_resource(uri)
    except Exception as exc:  # measure the rest and report what the provider said
        out.failed[key] = f"{type(exc).__name__}: {exc}"
        progress(f"{key} read failed: {out.failed[key]}")
        return None


async def timed_rounds(
    fs: ProviderSession, bs: ProviderSession, running: LaunchedBrowser,
    uris: Mapping[str, str | None], counts: Mapping[str, int], rounds: int, out: Timed,
) -> None:  # fmt: skip
    """`rounds` rounds, each: BLOCK_CALLS floor `current`s, as many on the browser, then
    `counts[key]` reads of `uris[key]` per key (None: skipped; fs for the floor keys), the
    screenshots at least SHOT_GAP_S apart, and a block of native-messaging pings."""
    log, pid = running.host_log, running.descriptor.listener_pid
    for key in uris:
        out.cpu[key] = CpuMeter(pid, running.pid) if key in READS else CpuMeter(fs.descriptor.listener_pid)
    last_shot = 0.0
    for round_ in range(rounds):
        progress(f"round {round_ + 1} of {rounds}")
        for _ in range(BLOCK_CALLS):
            await timed(fs.current, out.times["floor"])
        for _ in range(BLOCK_CALLS):
            answer = await timed(bs.current, out.times["current"])
        out.tree_bytes = tree_bytes(answer.raw)
        for key, uri in uris.items():
            if uri is None:
                continue
            session = bs if key in READS else fs
            offset = host_log.end_offset(log)
            for _ in range(counts[key]):
                if key == "shot":
                    await asyncio.sleep(max(0.0, last_shot + SHOT_GAP_S - time.monotonic()))
                    last_shot = time.monotonic()
                out.cpu[key].start()  # per call: the screenshots' pauses are not counted
                await timed(functools.partial(session.client.read_resource, uri), out.times[key])
                out.cpu[key].stop()
            if key in READS:
                out.rtts[key] += host_log.read_port_rtts(log, offset, pid, ("page.read",))[0]
        if pid is not None:
            out.times["ping"] += (await host_log.ping_block(pid, log))[0]


async def phase_reads(running: LaunchedBrowser, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Phase 1 (module docstring): the timed reads beside the floors; the report's rows."""
    from native_host.host import open_session
    from native_host.protocol.resources import format_page_uri

    def ready(raw: Mapping[str, Any]) -> bool:
        return bool(titled(raw, ARTICLE_TITLE).get("screenshot") and titled(raw, HUGE_TITLE))

    raw = await tree_until(running.descriptor, ready, "the article's links and the huge page")
    article = titled(raw, ARTICLE_TITLE)
    huge_id = str(titled(raw, HUGE_TITLE)["page"]["id"])  # a background Page: no link in `current`
    uris: dict[str, str | None] = {
        "article": article["text"],
        "huge": format_page_uri(running.descriptor.instance, huge_id, "text"),
        "shot": article["screenshot"],
    }
    mode: ConnectMode = "legacy" if args.legacy else "auto"
    out = Timed()
    seen: dict[str, Any] = {}
    async with open_session(running.descriptor, mode=mode, timeout_s=READ_TIMEOUT_S) as bs:
        for key in READS:
            seen[key] = await try_read(bs, key, uris[key], out)
    replies = {}
    if seen["article"] is not None:
        replies["text"] = page_read_reply(seen["article"], article["page"])
    if seen["shot"] is not None:
        replies["screenshot"] = page_read_reply(seen["shot"], article["page"])
    (workdir / "page_read.json").write_text(json.dumps(replies), encoding="utf-8")
    settle(running.pid)

    rounds = math.ceil(args.runs / BLOCK_CALLS)
    counts = {"ftext": BLOCK_CALLS, "article": BLOCK_CALLS, "huge": math.ceil(args.huge_runs / rounds)}
    counts["shot"] = counts["fshot"] = math.ceil(args.shots / rounds)
    with floor_provider(page_read_file=workdir / "page_read.json") as floor:
        async with (
            open_session(floor, mode=mode, timeout_s=READ_TIMEOUT_S) as fs,
            open_session(running.descriptor, mode=mode, timeout_s=READ_TIMEOUT_S) as bs,
        ):
            for key, kind in (("ftext", "text"), ("fshot", "screenshot")):
                uri = f"webctx://{floor.instance}/tab-1/{kind}" if kind in replies else None
                seen[key] = await try_read(fs, key, uri, out)
                uris[key] = uri if seen[key] is not None else None
            for key in READS:
                uris[key] = uris[key] if seen[key] is not None else None
            for _ in range(WARMUP_CALLS):
                await fs.current()
                await bs.current()
            await timed_rounds(fs, bs, running, uris, counts, rounds, out)
    floor_times = out.times["floor"]
    rows = []
    for key, name in ROW_NAMES.items():
        extra: dict[str, Any] = read_sizes(seen[key]) if seen.get(key) is not None else {}
        if out.rtts.get(key):
            extra["port_rtt_ms"] = round(Summary.of_ms(out.rtts[key]).median, 2)
        if key in out.failed:
            extra["failed"] = out.failed[key]
        if key == "current":
            extra["tree_bytes"] = out.tree_bytes
        if key in out.cpu and out.times[key]:
            per_call = [round(t * 1e3 / len(out.times[key]), 2) for t in out.cpu[key].used]
            extra["cpu_ms"] = dict(zip(("client", "server", "browser"), per_call, strict=True))
        rows.append(row(name, out.times[key], floor_times, **extra))
    return {"rows": rows, "era": mode}


async def phase_current(
    running: LaunchedBrowser, args: argparse.Namespace, label: str, workdir: Path
) -> list[dict[str, Any]]:
    """Phase 2 (module docstring): `current` under each SETTINGS, in `args.rounds` rounds, beside
    the floor and a same-size floor answering that setting's tree (captured at its first switch)."""
    from native_host.host import open_session

    keys = ("floor", "same", "browser")
    times: dict[str, dict[str, list[float]]] = {name: {k: [] for k in keys} for name in SETTINGS}
    sizes: dict[str, int] = {}
    blocks = max(1, args.current_calls // (args.rounds * BLOCK_CALLS))
    with contextlib.ExitStack() as stack:
        floor = stack.enter_context(floor_provider())
        same: dict[str, Descriptor] = {}
        for round_ in range(args.rounds):
            for number, (name, patch) in enumerate(SETTINGS.items()):
                progress(f"{label}: {name}, round {round_ + 1} of {args.rounds}")
                raw = await switch(running, patch)
                sizes[name] = tree_bytes(raw)
                if name not in same:
                    tree_file = workdir / f"tree-{label.replace(' ', '-')}-{number}.json"
                    root = json.dumps(raw["root"], ensure_ascii=False, separators=(",", ":"))
                    tree_file.write_text(root, encoding="utf-8")  # as bench/browser.py capture_root
                    same[name] = stack.enter_context(floor_provider(tree_file))
                async with contextlib.AsyncExitStack() as sessions:
                    providers = {"floor": floor, "same": same[name], "browser": running.descriptor}
                    opened = {
                        k: await sessions.enter_async_context(open_session(d, timeout_s=READ_TIMEOUT_S))
                        for k, d in providers.items()
                    }
                    for _ in range(WARMUP_CALLS):
                        for session in opened.values():
                            await session.current()
                    for _ in range(blocks):
                        for k, session in opened.items():
                            for _ in range(BLOCK_CALLS):
                                await timed(session.current, times[name][k])
    off = next(iter(SETTINGS))
    rows = []
    for name in SETTINGS:
        r = row(f"{label}: {name}", times[name]["browser"], times[name]["floor"], tree_bytes=sizes[name])
        r["floor_median_ms"] = round(median_ms(times[name]["floor"]), 2)
        r["same_size_median_ms"] = round(median_ms(times[name]["same"]), 2)
        r["x_same"] = ratio(r["median_ms"], r["same_size_median_ms"])
        r["bytes_over_off"] = sizes[name] - sizes[off]
        rows.append(r)
    return rows


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"load_average": load_average(), "uptime": uptime()}
    workdir = Path(tempfile.mkdtemp(prefix="webctx-page-read-"))
    pages = workdir / "pages"
    pages.mkdir()
    (pages / "article.html").write_text(article_page(args.paragraphs), encoding="utf-8")
    (pages / "huge.html").write_text(big_page(args.elements, 100), encoding="utf-8")
    with served_pages(pages) as base:
        async with cdp_browser(args.browser, workdir / "reads") as running:
            await open_tabs(running, base)
            await in_worker(running, SETTINGS_JS, {"pageText": True, "screenshots": True})
            await asyncio.sleep(1.0)
            report.update(await phase_reads(running, args, workdir))
            report["current_rows"] = await phase_current(running, args, "3 tabs", workdir)
    if args.tabs > 1:
        async with cdp_browser(args.browser, workdir / "many", tabs=args.tabs) as running:
            report["current_rows"] += await phase_current(running, args, f"{args.tabs} tabs", workdir)
    report["load_average_after"] = load_average()
    report["uptime_after"] = uptime()
    return report


def uptime() -> str:
    """`uptime`'s line (the load average the README figures are quoted with)."""
    import subprocess

    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


SHOWN_META: Final = ("truncated", "bytes", "source", "width", "height")
"""The `_meta` fields of a read the table shows (the JSON line has all)."""


def print_table(report: Mapping[str, Any]) -> None:
    """The rows as a table on stdout (times in ms)."""
    print(f"era: {report['era']}; load before: {report['uptime']}")
    print(f"{'row':<40} {'calls':>5} {'median':>8} {'p99':>8} {'x floor':>7} {'port RTT':>8}  size")
    for r in [*report["rows"], *report["current_rows"]]:
        if not r["calls"]:
            print(f"{r['row']:<40} {'—':>5}  {r.get('failed', 'not measured')}")
            continue
        size = ""
        if "content_bytes" in r:
            meta = {k: v for k, v in r["meta"].items() if k in SHOWN_META}
            size = f"{r['content_bytes']} B content, {r['answer_bytes']} B answer, {r['mimeType']} {meta}"
            if "cpu_ms" in r:
                size += " CPU ms/call " + "/".join(str(v) for v in r["cpu_ms"].values())
        elif "tree_bytes" in r:
            more = f" (+{r['bytes_over_off']} B)" if "bytes_over_off" in r else ""
            size = f"tree {r['tree_bytes']} B{more}"
            if "x_same" in r:
                floors = f"floor {r['floor_median_ms']}, same size {r['same_size_median_ms']}"
                size += f"; {floors}, x same {r['x_same']}"
        rtt = f"{r['port_rtt_ms']:8.2f}" if "port_rtt_ms" in r else " " * 8
        x = f"{r['x_floor']:7.2f}" if r.get("x_floor") is not None else " " * 7
        print(f"{r['row']:<40} {r['calls']:>5} {r['median_ms']:8.2f} {r['p99_ms']:8.2f} {x} {rtt}  {size}")
    print(f"load after: {report['uptime_after']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=50, help="article text reads (and floor, current)")
    parser.add_argument("--huge-runs", type=int, default=10, help="200,000-element page text reads")
    parser.add_argument("--shots", type=int, default=20, help="screenshot reads")
    parser.add_argument("--paragraphs", type=int, default=40)
    parser.add_argument("--elements", type=int, default=200_000)
    parser.add_argument("--tabs", type=int, default=100, help="tabs of the phase-2 browser (0: skip it)")
    parser.add_argument("--current-calls", type=int, default=100, help="`current` calls per setting")
    parser.add_argument("--rounds", type=int, default=5, help="phase 2: rounds of the three settings")
    parser.add_argument("--legacy", action="store_true", help="MCP 2025-11-25 instead of 2026-07-28")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--browser", help="the Chromium-family browser (default: as `webctx demo` finds it)")
    args = parser.parse_args()
    isolate(Path(tempfile.mkdtemp(prefix="webctx-bench-")))
    os.environ["WEBCTX_BENCH_PINGS"] = str(BLOCK_CALLS)  # native_host/provider/port/bench_ping.py
    report = asyncio.run(measure(args))
    if not args.json:
        print_table(report)
    print(json.dumps(report, default=str))


if __name__ == "__main__":
    run_main(main, __file__)
