"""`webctx mcp` start: spawn → `initialize` answered, spawn → first `tools/list` with every tool.

What it measures
----------------
This script plays an MCP client that starts the bridge as Codex does: it spawns a fresh
`webctx mcp` (stdin/stdout pipes), writes `initialize` at once, then `notifications/initialized`
and `tools/list` as soon as the initialize answer is read, and times, on the `time.monotonic()`
clock from just before `Popen`:

- **initialize**: until the answer to `initialize` is read from the bridge's stdout;
- **tools/list**: until the answer to that first `tools/list` is read, and how many tools it
  listed (with a browser: `current`, `location`, `read_page` and the page's tools, when the bridge
  waited for the provider as it should; 1, `current` alone, while no browser runs);

`--runs` times (default 11) for each scenario: **no browser** (an empty providers folder), and
**browser** (a real headless Chromium with the extension and native host, as bench/browser.py
starts it, on the test page). With `--against REV` each run of this checkout alternates with a
run of commit REV's `native_host` (extracted with `git archive` into a temp folder; both run by
the same interpreter and the same `-c` launcher, so only the code differs). Target: initialize
p50 ≤ 200 ms. Nothing touches the user's files (bench/environment.py); only processes this script
started are ended, by pid.

    .venv/bin/python bench/bridge_start.py [--runs 11] [--against REV] [--no-browser-only] [--json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any, Final

REPO: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.environment import isolate, load_average, progress  # noqa: E402
from bench.stats import Summary  # noqa: E402

LAUNCHER: Final = "import sys; from native_host.cli.main import main; sys.exit(main())"
"""What the `webctx` console script runs; `python -c LAUNCHER mcp` is `webctx mcp`."""

LIMIT_S: Final = 30.0
INITIALIZE: Final = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}
    },
}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def one_run(source: Path) -> tuple[float, float, int]:
    """Spawn the bridge of `source` (a folder holding `native_host/`) once: (s to the initialize
    answer, s to the first tools/list answer, tools listed). Raises RuntimeError on a bad answer."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env, cwd=source,  # cwd: `-c` puts it first on sys.path
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(_line(INITIALIZE))
        process.stdin.flush()
        first = json.loads(process.stdout.readline())
        initialized = time.monotonic() - started
        if first.get("id") != 1 or "result" not in first:
            raise RuntimeError(f"initialize was not answered: {str(first)[:200]}")
        process.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        process.stdin.write(_line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        process.stdin.flush()
        while (answer := json.loads(process.stdout.readline())).get("id") != 2:
            pass  # a list_changed notification may come first
        listed = time.monotonic() - started
        process.stdin.close()
        process.wait(timeout=LIMIT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return initialized, listed, len(answer["result"]["tools"])


def extract(rev: str, into: Path) -> Path:
    """`native_host/` of commit `rev` under `into` (git archive); returns `into`."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", rev, "native_host"],
        check=True, capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def scenario(name: str, sources: dict[str, Path], runs: int) -> list[dict[str, Any]]:
    """`runs` interleaved runs of each source; one row per source."""
    timings: dict[str, list[tuple[float, float, int]]] = {label: [] for label in sources}
    for _ in range(runs):
        for label, source in sources.items():
            timings[label].append(one_run(source))
    rows = []
    for label, values in timings.items():
        init, listed = Summary.of_seconds(v[0] for v in values), Summary.of_seconds(v[1] for v in values)
        rows.append({
            "scenario": name, "code": label, "runs": runs,
            "initialize_p50_ms": round(init.median, 1), "initialize_p99_ms": round(init.p99, 1),
            "initialize_min_ms": round(init.min, 1), "initialize_max_ms": round(init.max, 1),
            "tools_list_p50_ms": round(listed.median, 1), "tools_list_p99_ms": round(listed.p99, 1),
            "tools_listed": sorted({v[2] for v in values}),
        })
    return rows


def main(argv: list[str] | None = None) -> None:
    """Parse `argv`, run the scenarios, print the table and one JSON line."""
    parser = argparse.ArgumentParser(description="spawn → initialize and → first tools/list of `webctx mcp`")
    parser.add_argument("--runs", type=int, default=11, help="fresh processes per scenario and code (11)")
    parser.add_argument("--against", metavar="REV", help="interleave with the bridge of commit REV")
    parser.add_argument("--no-browser-only", action="store_true", help="skip the scenario with a browser")
    parser.add_argument("--browser", help="browser executable (default: as `webctx demo` finds it)")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args(argv)
    load_before = load_average()
    workdir = Path(tempfile.mkdtemp(prefix="webctx-bench-"))
    rows: list[dict[str, Any]] = []
    try:
        isolate(workdir)
        sources = {"this": REPO}
        if args.against:
            sources[args.against] = extract(args.against, workdir / "against")
        progress(f"no browser: {args.runs} runs per code")
        rows += scenario("no browser", sources, args.runs)
        if not args.no_browser_only:
            from bench.browser import launched_browser
            from native_host.demo.browsers import find_browser

            browser = args.browser or find_browser()
            with launched_browser(browser, 1, workdir):
                progress(f"browser: {args.runs} runs per code")
                rows += scenario("browser", sources, args.runs)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    summary = {
        "bench": "bridge_start",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "load_before": load_before, "load_after": load_average(), "cpus": os.cpu_count(), "rows": rows,
    }
    if not args.json:
        print(f"{'scenario':<11} {'code':<10} {'initialize p50 / p99 (min-max) ms':<36} "
              f"{'tools/list p50 / p99 ms':<24} tools")
        for r in rows:
            init = (f"{r['initialize_p50_ms']:.0f} / {r['initialize_p99_ms']:.0f} "
                    f"({r['initialize_min_ms']:.0f}-{r['initialize_max_ms']:.0f})")
            listed = f"{r['tools_list_p50_ms']:.0f} / {r['tools_list_p99_ms']:.0f}"
            print(f"{r['scenario']:<11} {r['code']:<10} {init:<36} {listed:<24} {r['tools_listed']}")
        print(f"load {load_before} → {summary['load_after']} on {os.cpu_count()} CPUs")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
