"""Latency of the MCP tool `current`, end to end, next to the floor of the MCP stack itself.

What it measures
----------------
The reference desktop host (`native_host.host.open_session`: real HTTP on 127.0.0.1, the
real bearer token, each answer checked against the descriptor) calls `current` `--calls` times
(default 300), one call at a time, over one open session per provider and MCP era, after 20
warm-up calls; each call is timed on the client (`time.perf_counter` around
`ProviderSession.current()`). Three providers are measured side by side:

- **floor**: a bare provider, `native_host.provider.endpoint.McpEndpoint` (the same SDK, uvicorn and
  transport settings, `LoopbackGuard` and middleware) in a subprocess of this script, whose
  requester answers `current` at once with a constant one-element tree. It is what any `current`
  costs before a browser is asked anything: HTTP + MCP + JSON + pydantic on both ends.
- **floor (same size)**: the same floor server, answering a constant `root` captured from the
  browser's own answer in that scenario just before the timed calls (same bytes, same shape: the
  instance string has the same length). It is what the MCP stack costs to carry *this* answer;
  the browser's row minus it is what webctx adds (native port, worker, native host).
- **N tab(s)**: Debian's Chromium (`--headless=new`, a throwaway `--user-data-dir` with developer
  mode seeded and the host manifest written by `native_host.install`, started as `webctx demo`
  starts it) with the real extension and the real native host, and N tabs of
  `tests/pages/index.html` served from 127.0.0.1; the first tab is the active one and an inline
  script selects a passage in it on load. On top of the floor this adds the native port (host →
  browser → service worker and back), the worker's work (windows and tabs, the `selection.get`
  pull from the active tab's content script, building the tree) and a bigger tree.

The floors' and the browser's calls alternate in blocks of 10 (`BLOCK_CALLS`), so that a change
in the machine's speed (other work on a small VM) hits all three alike and the ratios stay fair.
Eras: `mode="auto"` negotiates MCP 2026-07-28, `mode="legacy"` the 2025-11-25 handshake.

How to read it
--------------
Times are in milliseconds. `median` and `p99` (nearest rank: the 297th of 300 sorted calls) are
per row; `x floor` is the row's median over the median of the floor measured beside it in the
same era: the target is `x floor <= 2` (issues #3, #5: against the 142-byte floor, whatever the
answer's size). `x same` is the row's median over the same-size floor's: the part of the gap the
answer's size does not explain. `port RTT` is the median time the native host waited for the
worker's reply (its own log: request frame written → reply routed): the browser's share of a
call; "—" when the host logged no round trip (a host that answers from a pushed tree). The rest
of the gap to the floor is the host's and the client's extra work (the bigger tree, framing,
logging). `CPU` columns are CPU milliseconds per call of the client (this process), the
server process (native host or floor server) and all other browser processes; on a 2-vCPU machine
their sum is roughly the latency. `tree` is the size of the answer's JSON. The JSON line (the last
line; `--json` prints only it) has every figure, plus the load average before and after the run:
a load above the CPU count means other work competed with the measurement.

Nothing touches the real user's files: HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into a temp
folder, removed afterwards; only processes this script started are ended, by pid.

    .venv/bin/python bench/current_latency.py [--calls 300] [--tabs 1,50] [--json]

bench/profile_current.py reuses the pieces here to profile the client and the floor server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import math
import os
import platform
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, cast

import psutil

if TYPE_CHECKING:
    import cProfile

    from native_host.host import ConnectMode
    from native_host.protocol.descriptor import Descriptor

REPO: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.pages import QuietPageHandler, served_pages  # noqa: E402
from tests.support.requester import FakeRequester  # noqa: E402

PAGES: Final = REPO / "tests" / "pages"
PAGE_TITLE: Final = "webctx test page"
SELECTED_ID: Final = "para"
SELECTED_START: Final = "The quick brown fox"

WARMUP_CALLS: Final = 20
BLOCK_CALLS: Final = 10
"""Timed calls go floor, browser, floor, browser… in blocks of this many."""
CALL_TIMEOUT_S: Final = 10.0
READY_TIMEOUT_S: Final = 120.0
"""Browser start → provider up, all tabs loaded and the selection reported, in seconds (plus 0.4 s
per tab: see launched_browser)."""
SETTLE_MAX_S: Final = 30.0
SETTLE_QUIET_PERCENT: Final = 10.0
"""The browser counts as idle when its processes together use less than this much of one core."""

FLOOR_ROOT: Final[dict[str, Any]] = {
    "id": "app",
    "role": "Application",
    "title": "Floor",
    "attributes": {"version": "0"},
}
"""What the floor's requester answers to `current`: a constant, small root element."""

SELECT_SCRIPT: Final = (
    "<script>addEventListener('load', () => { const r = document.createRange();"
    f" r.selectNodeContents(document.getElementById('{SELECTED_ID}'));"
    " const s = getSelection(); s.removeAllRanges(); s.addRange(r); });</script>"
)

RTT_LINE: Final = re.compile(
    r" (\d+) DEBUG native_host\.provider\.bridge: request h-\d+ current answered in ([\d.]+) ms"
)
"""The native host's log line for a `current` round trip over the native port (pid, ms)."""

MODES: Final = ("auto", "legacy")
SAME_SIZE: Final = "floor (same size)"
"""The scenario name of the floor that answers the browser's own tree."""


def progress(line: str) -> None:
    """One progress line on stderr (stdout is for the results)."""
    print(f"bench: {line}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Isolation


def isolate(root: Path) -> None:
    """Point HOME, XDG_* and CONTEXT_PROVIDERS_DIR into `root` (as tests/conftest.py does); the
    browser, the native host and the floor server inherit them."""
    home = root / "home"
    home.mkdir()
    os.environ["HOME"] = str(home)
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        os.environ[name] = str(home / sub)
    os.environ.pop("XDG_RUNTIME_DIR", None)
    os.environ["CONTEXT_PROVIDERS_DIR"] = str(root / "providers")


# ---------------------------------------------------------------------------------------------
# Statistics


@dataclass(frozen=True)
class Row:
    """One scenario and era: client-side latencies of `current`, in milliseconds."""

    scenario: str
    tabs: int
    mode: str
    era: str
    calls: int
    median_ms: float
    p99_ms: float
    mean_ms: float
    min_ms: float
    max_ms: float
    ratio: float | None
    port_rtt_median_ms: float | None
    port_rtt_p99_ms: float | None
    tree_bytes: int
    client_cpu_ms: float
    """CPU time per call of this process (the reference client), in ms."""
    server_cpu_ms: float
    """CPU time per call of the provider's server process (native host, or the floor server)."""
    browser_cpu_ms: float | None
    """CPU time per call of every browser process, the native host excluded."""
    ratio_same_size: float | None = None
    """Browser rows: median over the median of the same-size floor measured beside it."""
    over_floor_ms: float | None = None
    """median minus the 142-byte floor's median, in ms (same-size floor: the answer size's cost)."""
    over_same_size_ms: float | None = None
    """Browser rows: median minus the same-size floor's median, in ms: what webctx adds."""


def nearest_rank(sorted_values: list[float], q: float) -> float:
    """The q-quantile (0 < q ≤ 1) of `sorted_values` by nearest rank."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


# ---------------------------------------------------------------------------------------------
# Measuring through the reference client


class CpuMeter:
    """CPU time (user + system) over the timed calls, summed across blocks, for three process
    groups: this client, the provider's server process (`server_pid`: the native host or the
    floor server) and the browser's other processes (`browser_pid` and its descendants)."""

    def __init__(self, server_pid: int | None, browser_pid: int | None = None) -> None:
        self._server_pid = server_pid
        self._browser_pid = browser_pid
        self._start = (0.0, 0.0, 0.0)
        self.used = (0.0, 0.0, 0.0)

    def _read_others(self) -> tuple[float, float]:
        def cpu(proc: psutil.Process) -> float:
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                return times.user + times.system
            return 0.0

        server = cpu(psutil.Process(self._server_pid)) if self._server_pid else 0.0
        browser = 0.0
        if self._browser_pid:
            with contextlib.suppress(psutil.Error):
                main = psutil.Process(self._browser_pid)
                procs = [main, *main.children(recursive=True)]
                browser = sum(cpu(p) for p in procs if p.pid != self._server_pid)
        return server, browser

    def start(self) -> None:
        """Start a block (this process's clock is read last, so the reading is not counted)."""
        server, browser = self._read_others()
        self._start = (time.process_time(), server, browser)

    def stop(self) -> None:
        """End a block: add its CPU time to `used` (this process's clock is read first)."""
        client = time.process_time()
        end = (client, *self._read_others())
        self.used = (
            self.used[0] + end[0] - self._start[0],
            self.used[1] + end[1] - self._start[1],
            self.used[2] + end[2] - self._start[2],
        )


@dataclass
class Target:
    """One provider to measure: its descriptor, the browser's pid (None for the floor), and what
    the timed calls gave."""

    descriptor: Descriptor
    browser_pid: int | None = None
    era: str = ""
    seconds: list[float] = field(default_factory=list)
    tree_bytes: int = 0
    meter: CpuMeter | None = None


async def _measure_interleaved(
    targets: list[Target],
    mode: ConnectMode,
    calls: int,
    warmup: int,
    profilers: Sequence[cProfile.Profile | None] = (),
    after_warmup: Callable[[], None] | None = None,
) -> None:
    from native_host.host import open_session

    profiles = list(profilers) or [None] * len(targets)

    async with contextlib.AsyncExitStack() as stack:
        sessions = []
        for target in targets:
            session = await stack.enter_async_context(
                open_session(target.descriptor, mode=mode, timeout_s=CALL_TIMEOUT_S)
            )
            target.era = session.protocol_version
            target.meter = CpuMeter(target.descriptor.listener_pid, target.browser_pid)
            sessions.append(session)
        for session in sessions:
            for _ in range(warmup):
                await session.current()
        if after_warmup is not None:
            after_warmup()
        clock = time.perf_counter
        done = 0
        while done < calls:
            count = min(BLOCK_CALLS, calls - done)
            for target, session, profile in zip(targets, sessions, profiles, strict=True):
                assert target.meter is not None
                target.meter.start()
                if profile is not None:
                    profile.enable()
                for _ in range(count):
                    started = clock()
                    result = await session.current()
                    target.seconds.append(clock() - started)
                if profile is not None:
                    profile.disable()
                target.meter.stop()
                target.tree_bytes = len(
                    json.dumps(result.raw, ensure_ascii=False, separators=(",", ":")).encode()
                )
            done += count


def measure_interleaved(
    targets: list[Target],
    mode: str,
    calls: int,
    warmup: int,
    profilers: Sequence[cProfile.Profile | None] = (),
    after_warmup: Callable[[], None] | None = None,
) -> None:
    """Open one session per target in `mode` (all at once), warm each up with `warmup` calls, then
    time `calls` sequential `current` calls per target in alternating blocks of BLOCK_CALLS, so
    a drift in the machine's speed hits every target alike. Results go into the targets.
    `profilers` (bench/profile_current.py): one per target, or None, enabled around that target's
    timed blocks only; `after_warmup` is called once, between the warm-up and the timed calls."""
    mode_ = cast("ConnectMode", mode)
    asyncio.run(_measure_interleaved(targets, mode_, calls, warmup, profilers, after_warmup))


def make_row(
    scenario: str,
    tabs: int,
    mode: str,
    target: Target,
    floor: Target | None,
    rtts: list[float],
    same_size: Target | None = None,
) -> Row:
    """Summarize one target's timed calls (`floor`: the 142-byte floor measured beside it, for
    `ratio`; `same_size`: the same-size floor measured beside it, for `ratio_same_size`)."""
    ms = sorted(x * 1e3 for x in target.seconds)
    median = statistics.median(ms)
    floor_median = statistics.median(floor.seconds) * 1e3 if floor is not None else None
    same_median = statistics.median(same_size.seconds) * 1e3 if same_size is not None else None
    rtt_sorted = sorted(rtts)
    used = target.meter.used if target.meter is not None else (0.0, 0.0, 0.0)
    return Row(
        scenario=scenario,
        tabs=tabs,
        mode=mode,
        era=target.era,
        calls=len(ms),
        median_ms=round(median, 3),
        p99_ms=round(nearest_rank(ms, 0.99), 3),
        mean_ms=round(statistics.fmean(ms), 3),
        min_ms=round(ms[0], 3),
        max_ms=round(ms[-1], 3),
        ratio=round(median / floor_median, 2) if floor_median else None,
        port_rtt_median_ms=round(statistics.median(rtt_sorted), 3) if rtt_sorted else None,
        port_rtt_p99_ms=round(nearest_rank(rtt_sorted, 0.99), 3) if rtt_sorted else None,
        tree_bytes=target.tree_bytes,
        client_cpu_ms=round(used[0] * 1e3 / len(ms), 3),
        server_cpu_ms=round(used[1] * 1e3 / len(ms), 3),
        browser_cpu_ms=round(used[2] * 1e3 / len(ms), 3) if target.browser_pid else None,
        ratio_same_size=round(median / same_median, 2) if same_median else None,
        over_floor_ms=round(median - floor_median, 3) if floor_median else None,
        over_same_size_ms=round(median - same_median, 3) if same_median else None,
    )


# ---------------------------------------------------------------------------------------------
# The floor: McpEndpoint with a constant requester, in a subprocess


def _profile_on_signals(loop: asyncio.AbstractEventLoop, out: Path) -> None:
    """The floor server's `--floor-profile OUT`: SIGUSR1 starts cProfile (this thread: the event
    loop that runs uvicorn and the SDK), SIGUSR2 stops it and writes pstats to `out`."""
    import cProfile

    profiler = cProfile.Profile()

    def dump() -> None:
        profiler.disable()
        profiler.dump_stats(str(out))

    loop.add_signal_handler(signal.SIGUSR1, profiler.enable)
    loop.add_signal_handler(signal.SIGUSR2, dump)


async def serve_floor(tree_file: Path | None = None, profile_out: Path | None = None) -> None:
    """The floor server (this script with `--floor-server`): start the endpoint, print
    `{url, token, instance, pid}` as one JSON line, serve until stdin closes or SIGTERM.
    `tree_file`: a JSON root element to answer instead of FLOOR_ROOT; `profile_out`: see
    `_profile_on_signals`."""
    from native_host.provider.endpoint import McpEndpoint

    root = json.loads(tree_file.read_text(encoding="utf-8")) if tree_file else FLOOR_ROOT
    instance = secrets.token_urlsafe(16)
    # Every request gets this one object back: the endpoint checks and encodes it once, as it
    # does a pushed tree.
    endpoint = McpEndpoint(FakeRequester(default={"root": root}), instance=instance)
    url = await endpoint.start()
    info = {"url": url, "token": endpoint.token, "instance": instance, "pid": os.getpid()}
    print(json.dumps(info), flush=True)
    loop = asyncio.get_running_loop()
    if profile_out is not None:
        _profile_on_signals(loop, profile_out)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    eof = loop.run_in_executor(None, sys.stdin.buffer.read)
    eof.add_done_callback(lambda _: stop.set())
    await stop.wait()
    await endpoint.stop()
    os._exit(0)  # the stdin reader thread may still block


@contextlib.contextmanager
def floor_provider(tree_file: Path | None = None, profile_out: Path | None = None) -> Iterator[Descriptor]:
    """Start the floor server subprocess (answering FLOOR_ROOT, or the root element in the JSON
    file `tree_file`; cProfile on SIGUSR1/SIGUSR2 into `profile_out` if given); yield a Descriptor
    for it; stop it (stdin closed, then killed by pid after 5 s)."""
    from native_host.protocol.descriptor import Descriptor
    from native_host.protocol.version import PROTOCOL_VERSION

    command = [sys.executable, str(Path(__file__).resolve()), "--floor-server"]
    if tree_file is not None:
        command += ["--floor-tree", str(tree_file)]
    if profile_out is not None:
        command += ["--floor-profile", str(profile_out)]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=REPO,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("The floor server exited before it started; see the lines above.")
        info = json.loads(line)
        yield Descriptor(
            protocol=PROTOCOL_VERSION,
            bundle_id="bench.floor",
            name="floor",
            version="0",
            pid=info["pid"],
            instance=info["instance"],
            endpoint=info["url"],
            token=info["token"],
            listener_pid=info["pid"],
        )
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


# ---------------------------------------------------------------------------------------------
# The real browser


class _PageHandler(QuietPageHandler):
    """tests/pages; `index.html?select` gets an inline script that selects #para on load."""

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path == "/index.html" and "select" in query.split("&"):
            html = (PAGES / "index.html").read_text(encoding="utf-8")
            body = html.replace("</body>", SELECT_SCRIPT + "\n</body>").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
        else:
            super().do_GET()


@contextlib.contextmanager
def page_server() -> Iterator[str]:
    """Serve tests/pages on 127.0.0.1 from a thread; yield the base URL."""
    with served_pages(PAGES, handler=_PageHandler) as url:
        yield url


def tab_urls(base: str, tabs: int) -> list[str]:
    """The first tab selects a passage on load; the others are plain copies of the page."""
    return [f"{base}/index.html?select"] + [f"{base}/index.html"] * (tabs - 1)


def devtools_port(user_data_dir: Path, deadline: float, alive: Callable[[], None]) -> int:
    """The browser's DevTools port (`--remote-debugging-port=0` writes it to DevToolsActivePort)."""
    active = user_data_dir / "DevToolsActivePort"
    while time.monotonic() < deadline:
        alive()
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int(active.read_text().split()[0])
        time.sleep(0.1)
    raise RuntimeError("The browser did not open its DevTools port in time.")


def devtools(port: int, method: str, path: str) -> Any:
    """One request to the browser's DevTools HTTP endpoint (127.0.0.1 only); its JSON answer."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")


def open_more_tabs(port: int, urls: list[str]) -> None:
    """Open `urls` as new tabs of the window (headless Chromium takes one URL on its command line),
    then make the first tab, the one with the selection, the active one again."""
    for url in urls:
        devtools(port, "PUT", "/json/new?" + url)
    targets = devtools(port, "GET", "/json/list")
    first = [t for t in targets if t.get("type") == "page" and "?select" in str(t.get("url"))]
    if first:
        devtools(port, "GET", f"/json/activate/{first[0]['id']}")


def _walk(element: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield element
    for child in element.get("children") or []:
        yield from _walk(child)


def tree_ready(raw: Mapping[str, Any], tabs: int) -> str | None:
    """None when the tree accounts for `tabs` tabs (listed, or counted in a Window's
    `tabsOmitted` above the per-window budget, SPEC §2), every listed one loaded with our page, and
    the selected passage in the focused one; else what is still missing."""
    root = raw.get("root") or {}
    pages = [e for e in _walk(root) if e.get("role") == "Page"]
    windows = [e for e in _walk(root) if e.get("role") == "Window"]
    omitted = sum(int((w.get("attributes") or {}).get("tabsOmitted", 0)) for w in windows)
    loaded = [p for p in pages if p.get("title") == PAGE_TITLE]
    if len(pages) + omitted != tabs or len(loaded) != len(pages):
        return f"{len(loaded)} of {len(pages)} listed tabs loaded, {omitted} omitted, {tabs} opened"
    focused = [p for p in pages if p.get("focused")]
    if len(focused) != 1 or "?select" not in str(focused[0].get("url")):
        return "the tab with the selection is not the focused one"
    texts = [e for e in _walk(root) if e.get("role") == "Text" and e.get("selected")]
    starts = [str((t.get("content") or [{}])[0].get("text", "")) for t in texts]
    if len(texts) != 1 or not starts[0].startswith(SELECTED_START):
        return f"{len(texts)} selected Text element(s) instead of the passage"
    return None


async def _current_raw(descriptor: Descriptor) -> dict[str, Any]:
    from native_host.host import open_session

    async with open_session(descriptor, timeout_s=CALL_TIMEOUT_S) as session:
        return (await session.current()).raw


def wait_until_ready(descriptor: Descriptor, tabs: int, deadline: float, alive: Callable[[], None]) -> None:
    """Ask `current` until `tree_ready`; raise RuntimeError at `deadline`."""
    from native_host.errors import WebctxError

    missing = "no answer yet"
    while time.monotonic() < deadline:
        alive()
        try:
            missing = tree_ready(asyncio.run(_current_raw(descriptor)), tabs) or ""
        except WebctxError as exc:
            missing = exc.message
        if not missing:
            return
        time.sleep(0.5)
    raise RuntimeError(f"The browser was not ready in time: {missing}.")


def settle(pid: int) -> float:
    """Wait until the browser's processes are idle (SETTLE_QUIET_PERCENT of one core over two
    0.5 s samples in a row), at most SETTLE_MAX_S; return the last reading, in % of one core."""
    seen: dict[int, psutil.Process] = {}
    quiet = 0
    total = 100.0
    deadline = time.monotonic() + SETTLE_MAX_S
    while time.monotonic() < deadline:
        try:
            procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        except psutil.Error:
            break
        total = 0.0
        for proc in procs:
            known = seen.setdefault(proc.pid, proc)
            with contextlib.suppress(psutil.Error):
                total += known.cpu_percent(None)  # the first reading of a process is 0.0
        quiet = quiet + 1 if total < SETTLE_QUIET_PERCENT else 0
        if quiet >= 2:
            break
        time.sleep(0.5)
    return total


def read_rtts(log: Path, offset: int, host_pid: int | None) -> tuple[list[float], int]:
    """The `current answered in … ms` timings the native host logged after `offset`; and the new
    offset (the log's size now)."""
    try:
        with log.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            end = fh.tell()
            if end < offset:  # rotated: the timings are in the old file, skip them
                return [], end
            fh.seek(offset)
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return [], offset
    rtts = [
        float(m.group(2)) for m in RTT_LINE.finditer(text) if host_pid is None or int(m.group(1)) == host_pid
    ]
    return rtts, end


@dataclass(frozen=True)
class LaunchedBrowser:
    """A browser ready to measure: its provider's descriptor and the browser's main pid."""

    descriptor: Descriptor
    pid: int
    host_log: Path


@contextlib.contextmanager
def launched_browser(browser: str, tabs: int, workdir: Path) -> Iterator[LaunchedBrowser]:
    """Start `browser` as `webctx demo` does (fresh profile with developer mode seeded, host
    manifest installed into it), with `tabs` tabs of the test page, the first one holding a
    selection and active; yield once the tree shows them all and the browser is idle. The browser
    and the processes it started are stopped by pid afterwards."""
    from native_host import paths
    from native_host.demo.runner import DemoBrowser, _prepare_providers_folder, _stop_browser, browser_command
    from native_host.install.installer import install

    _prepare_providers_folder()
    user_data_dir = workdir / f"udd-{tabs}"
    (user_data_dir / "Default").mkdir(parents=True)
    (user_data_dir / "Default" / "Preferences").write_text(
        json.dumps({"extensions": {"ui": {"developer_mode": True}}})
    )
    install("chromium", user_data_dir=user_data_dir, launcher_dir=user_data_dir)
    log_path = workdir / f"browser-{tabs}.log"
    with page_server() as base, log_path.open("wb") as log_file:
        urls = tab_urls(base, tabs)
        # Headless Chromium refuses several URLs on its command line ("Multiple targets are not
        # supported in headless mode"): the other tabs are opened over the DevTools endpoint.
        command = browser_command(browser, user_data_dir, paths.extension_dir(), urls[0])
        command.insert(-1, "--remote-debugging-port=0")
        started = time.monotonic()
        process: subprocess.Popen[bytes] = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=dict(os.environ),
            start_new_session=True,
        )
        demo = DemoBrowser(browser, process, user_data_dir, urls[0], log_path, progress)
        try:
            # Opening hundreds of tabs on a busy 2-vCPU machine can take minutes: 0.4 s more per tab.
            deadline = started + READY_TIMEOUT_S + 0.4 * tabs
            if len(urls) > 1:
                open_more_tabs(devtools_port(user_data_dir, deadline, demo._check_alive), urls[1:])
            descriptor = demo.wait_for_provider(deadline)
            provider_s = time.monotonic() - started
            wait_until_ready(descriptor, tabs, deadline, demo._check_alive)
            loaded_s = time.monotonic() - started
            idle = settle(process.pid)
            progress(
                f"{tabs} tab(s): provider after {provider_s:.1f} s, tabs loaded after {loaded_s:.1f} s, "
                f"browser at {idle:.0f}% CPU; measuring"
            )
            yield LaunchedBrowser(descriptor, process.pid, paths.log_dir() / "native-host.log")
        finally:
            _stop_browser(demo)


def capture_root(descriptor: Descriptor, path: Path) -> None:
    """Ask `descriptor` for `current` once and write its `root` element to `path` as JSON (the
    same-size floor answers it)."""
    root = asyncio.run(_current_raw(descriptor))["root"]
    path.write_text(json.dumps(root, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def run_browser(
    browser: str, tabs: int, calls: int, warmup: int, floor: Descriptor, workdir: Path
) -> tuple[list[Row], list[Row], str]:
    """Measure both eras against `browser` with `tabs` tabs, interleaved with the floor and with a
    floor answering the browser's own tree (captured once it is ready); the rows (floor, browser;
    per era), the same-size floor's rows, and the browser's version."""
    rows: list[Row] = []
    same_rows: list[Row] = []
    label = f"{tabs} tab" + ("s" if tabs != 1 else "")
    with launched_browser(browser, tabs, workdir) as running:
        descriptor = running.descriptor
        tree_file = workdir / f"tree-{tabs}.json"
        capture_root(descriptor, tree_file)
        with floor_provider(tree_file) as same_floor:
            for mode in MODES:
                offset = running.host_log.stat().st_size if running.host_log.exists() else 0
                bare, same, real = Target(floor), Target(same_floor), Target(descriptor, running.pid)
                measure_interleaved([bare, same, real], mode, calls, warmup)
                rtts, _ = read_rtts(running.host_log, offset, descriptor.listener_pid)
                rtts = rtts[-calls:]  # the warm-up calls come first
                rows.append(make_row("floor", tabs, mode, bare, None, []))
                rows.append(make_row(label, tabs, mode, real, bare, rtts, same))
                same_rows.append(make_row(SAME_SIZE, tabs, mode, same, bare, []))
    return rows, same_rows, descriptor.version


# ---------------------------------------------------------------------------------------------
# Output


def ordered(rows: list[Row], same_rows: list[Row]) -> list[Row]:
    """`rows` with each era's same-size floor row put after its 142-byte floor row."""
    same = {(r.tabs, r.mode): r for r in same_rows}
    out: list[Row] = []
    for r in rows:
        out.append(r)
        if r.scenario == "floor" and (r.tabs, r.mode) in same:
            out.append(same[(r.tabs, r.mode)])
    return out


def table(rows: list[Row], same_rows: list[Row], calls: int, warmup: int) -> str:
    """The human-readable table: per tab count and era, the floor, the same-size floor and the
    browser. Floors leave `port RTT` blank; a browser row without logged round trips shows "—"."""
    head = (
        f"`current` through host_client (real HTTP, one session per row): {calls} sequential calls "
        f"after {warmup} warm-up,\nfloors and browser interleaved in blocks of {BLOCK_CALLS}; "
        "times in ms, CPU in ms per call;\nx floor: over the 142-byte floor (the target), "
        "x same: over the floor answering the same tree"
    )
    cols = (
        f"{'scenario':<17} {'era':<10} {'median':>7} {'p99':>7} {'x floor':>7} {'x same':>6} "
        f"{'port RTT':>8} {'tree':>7}  {'CPU client':>10} {'server':>6} {'browser':>7}"
    )
    rule = "-" * len(cols)
    lines = [head, cols]
    for i, r in enumerate(ordered(rows, same_rows)):
        if i == 0 or (r.scenario == "floor" and r.mode == MODES[0]):
            lines.append(rule)
        ratio = f"{r.ratio:.2f}" if r.ratio is not None else ""
        same = f"{r.ratio_same_size:.2f}" if r.ratio_same_size is not None else ""
        is_floor = r.browser_cpu_ms is None
        rtt = "" if is_floor else "—" if r.port_rtt_median_ms is None else f"{r.port_rtt_median_ms:.2f}"
        browser = f"{r.browser_cpu_ms:.2f}" if r.browser_cpu_ms is not None else ""
        lines.append(
            f"{r.scenario:<17} {r.era:<10} {r.median_ms:>7.2f} {r.p99_ms:>7.2f} {ratio:>7} {same:>6} "
            f"{rtt:>8} {r.tree_bytes:>6}B  {r.client_cpu_ms:>10.2f} {r.server_cpu_ms:>6.2f} {browser:>7}"
        )
    return "\n".join(lines)


def parse_tabs(text: str) -> list[int]:
    try:
        tabs = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tabs takes numbers separated by commas, not {text!r}") from None
    if not tabs or any(t < 1 for t in tabs):
        raise argparse.ArgumentTypeError("--tabs needs one or more counts of at least 1")
    return tabs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Median and p99 of `current` through the reference client, against a real "
        "browser and against a bare MCP endpoint (the floor), in both MCP eras.",
    )
    parser.add_argument("--calls", type=int, default=300, help="timed calls per scenario and era (300)")
    parser.add_argument("--tabs", type=parse_tabs, default=[1, 50], help="tab counts, e.g. 1,50 (default)")
    parser.add_argument("--warmup", type=int, default=WARMUP_CALLS, help=f"warm-up calls ({WARMUP_CALLS})")
    parser.add_argument("--browser", help="browser executable (default: as `webctx demo` finds it)")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("--floor-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor-tree", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--floor-profile", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.floor_server:
        asyncio.run(serve_floor(args.floor_tree, args.floor_profile))
        return 0
    if args.calls < 1:
        parser.error("--calls must be at least 1")

    load_before = [round(x, 2) for x in os.getloadavg()]
    if load_before[0] > (os.cpu_count() or 1):
        progress(f"load average {load_before[0]:.1f} on {os.cpu_count()} CPUs: other work will add noise")
    workdir = Path(tempfile.mkdtemp(prefix="webctx-bench-"))
    try:
        isolate(workdir)
        from native_host.demo.browsers import find_browser

        browser = args.browser or find_browser()
        rows: list[Row] = []
        same_rows: list[Row] = []
        version = "unknown"
        progress("floor: a bare McpEndpoint with a constant requester, in a subprocess")
        with floor_provider() as floor:
            for tabs in args.tabs:
                progress(f"starting {browser} with {tabs} tab(s)")
                browser_rows, same_size_rows, version = run_browser(
                    browser, tabs, args.calls, args.warmup, floor, workdir
                )
                rows.extend(browser_rows)
                same_rows.extend(same_size_rows)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    browser_rows = [r for r in rows if r.scenario != "floor"]
    worst = max((r.ratio or 0.0 for r in browser_rows), default=0.0)
    worst_same = max((r.ratio_same_size or 0.0 for r in browser_rows), default=0.0)
    summary = {
        "bench": "current_latency",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg_before": load_before,
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
            "platform": platform.platform(),
            "python": platform.python_version(),
            "browser": f"{Path(browser).name} {version}",
        },
        "calls": args.calls,
        "warmup": args.warmup,
        "target": "median current <= 2x floor median, per era",
        "target_met": worst <= 2.0,
        "worst_ratio": worst,
        "rows": [asdict(r) for r in rows],
        "worst_ratio_same_size": worst_same,
        "floor_same_size_rows": [asdict(r) for r in same_rows],
    }
    out: IO[str] = sys.stdout
    if not args.json:
        print(table(rows, same_rows, args.calls, args.warmup), file=out)
        verdict = "met" if summary["target_met"] else "NOT met"
        print(
            f"target median <= 2x floor: {verdict} (worst {worst:.2f}x; "
            f"against the same-size floor, worst {worst_same:.2f}x)",
            file=out,
        )
    print(json.dumps(summary, separators=(",", ":")), file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
