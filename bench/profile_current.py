"""Where a `current` call's CPU goes: cProfile in the client and in the floor server.

What it does
------------
The same set-up as bench/current_latency.py (from bench/floor.py, browser.py, interleaved.py):
the **floor** (a bare `McpEndpoint` answering the 142-byte constant), a headless Chromium with
`--tabs` tabs and the real extension and native host, and the **floor (same size)** answering the
browser's own tree (captured once it is ready). After 20 warm-up calls, `--calls` `current` calls
per provider in one MCP era (`--mode`), alternating in blocks of 10, with a `cProfile.Profile`
enabled in this process (the reference client) around each provider's blocks only, and one in each
floor server (started by SIGUSR1 after the warm-up, stopped and written by SIGUSR2).

The profiles use cProfile's own wall clock (a `time.process_time` clock would count only CPU
but costs 0.6 µs a reading, which made a profiled call 10 times slower). Waiting is then the own time
of the event loop's `epoll.poll` (the client waiting for the server; the server idle between
blocks): it is left out of the totals and shown on its own line. Per provider and process the
script prints the own time ("tottime") per `current` call in µs grouped by package (mcp,
pydantic, anyio, h11, asyncio, builtins…), then the top `--top` functions, each with its share
of the process's profiled time. cProfile's overhead still inflates a call 2 to 4 times, cheap functions
called often most, and on a loaded machine time the process spent preempted lands in whatever
function was running: read the shares and compare providers with each other, not with the
latency figures, which come from bench/current_latency.py, run without a profiler.

The native host is not profiled: the browser starts it through native messaging. Its CPU per
call is `server` in current_latency.py's `CPU` columns; `py-spy top --pid <host pid>` (not a
dependency) samples it if it is installed. `--save DIR` keeps the `.pstats` files
(`python -m pstats DIR/client-floor.pstats`).

    .venv/bin/python bench/profile_current.py [--calls 200] [--tabs 1] [--mode auto] [--top 12]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

REPO: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.browser import capture_root, launched_browser  # noqa: E402
from bench.environment import isolate, progress  # noqa: E402
from bench.floor import floor_provider  # noqa: E402
from bench.interleaved import MODES, SAME_SIZE, WARMUP_CALLS, Target, measure_interleaved  # noqa: E402
from bench.stats import median_ms  # noqa: E402

DUMP_TIMEOUT_S: Final = 10.0
WAIT_FUNCS: Final = frozenset({"<method 'poll' of 'select.epoll' objects>"})
"""Own time here is the event loop blocking for I/O (Linux; the selector is epoll)."""
PREFIXES: Final = (r"site-packages/", r"/python3\.\d+/", re.escape(str(REPO)) + "/")
"""Where a source path's interesting part starts: an installed package, the standard library,
this repository (tried in this order: the venv lies inside the repository)."""
FuncKey = tuple[str, int, str]
"""pstats' key of a function: (file, line, name); file "~" for built-ins."""


def is_wait(key: FuncKey) -> bool:
    """The event loop's blocking poll: its own time is waiting, not work."""
    return key[2] in WAIT_FUNCS


def package(key: FuncKey) -> str:
    """What a function belongs to: a site-packages distribution's top folder, a standard-library
    module, this repository's top folder; C functions by their module ("_socket (C)",
    "pydantic_core (C)"), else "builtins (C)"."""
    file, _line, name = key
    if file == "~":  # "<method 'send' of '_socket.socket' objects>", "<built-in method _json.x>"
        found = re.search(r"(?:of '|built-in method )(\w+)\.", name)
        return f"{found.group(1)} (C)" if found else "builtins (C)"
    for prefix in PREFIXES:
        found = re.search(prefix + r"([^/]+)", file)
        if found:
            return found.group(1).removesuffix(".py")
    return file


def label(key: FuncKey) -> str:
    """`name (path:line)` with the site-packages, standard-library or repository prefix cut."""
    file, line, name = key
    if file == "~":
        return name
    for prefix in PREFIXES:
        found = re.search(prefix, file)
        if found:
            file = file[found.end() :]
            break
    return f"{name} ({file}:{line})"


def report(stats: pstats.Stats, calls: int, top: int) -> list[str]:
    """One profile's lines: own time per `current` call (of `calls`) in µs by package, then the
    `top` functions by own time with their share and calls per `current`; waiting left out."""
    entries: dict[FuncKey, tuple[int, int, float, float, Any]] = stats.stats  # type: ignore[attr-defined]
    waiting = sum(v[2] for k, v in entries.items() if is_wait(k))
    work = {k: v for k, v in entries.items() if not is_wait(k)}
    total = sum(v[2] for v in work.values()) or 1.0
    per_call = 1e6 / calls
    by_package: dict[str, float] = {}
    for key, value in work.items():
        by_package[package(key)] = by_package.get(package(key), 0.0) + value[2]
    packages = sorted(by_package.items(), key=lambda kv: kv[1], reverse=True)
    lines = [
        f"  profiled work {total * per_call:.0f} µs per call; waiting in epoll {waiting * per_call:.0f} µs",
        "  by package: " + ", ".join(f"{name} {t * per_call:.0f}" for name, t in packages[:8]),
        f"  {'own µs/call':>11} {'share':>6} {'n/call':>7}  function",
    ]
    ranked = sorted(work.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    for key, (_cc, nc, tt, _ct, _callers) in ranked:
        lines.append(f"  {tt * per_call:>11.1f} {tt / total:>6.1%} {nc / calls:>7.1f}  {label(key)}")
    return lines


def wait_for(path: Path) -> None:
    """Wait until a floor server has written its profile to `path` (it does so on SIGUSR2)."""
    deadline = time.monotonic() + DUMP_TIMEOUT_S
    while not path.exists() or path.stat().st_size == 0:
        if time.monotonic() > deadline:
            raise RuntimeError(f"The floor server did not write {path} in time.")
        time.sleep(0.05)
    time.sleep(0.2)  # dump_stats writes in one go; leave it time to close the file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="profiled calls per provider (200)")
    parser.add_argument("--tabs", type=int, default=1, help="tabs in the browser (1)")
    parser.add_argument("--mode", choices=MODES, default="auto", help="MCP era: auto (2026-07-28)")
    parser.add_argument("--top", type=int, default=12, help="functions listed per profile (12)")
    parser.add_argument("--warmup", type=int, default=WARMUP_CALLS)
    parser.add_argument("--browser", help="browser executable (default: as `webctx demo` finds it)")
    parser.add_argument("--save", type=Path, help="keep the .pstats files in this folder")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.tabs < 1:
        parser.error("--calls and --tabs must be at least 1")

    load_before = os.getloadavg()[0]
    workdir = Path(tempfile.mkdtemp(prefix="webctx-profile-"))
    out = args.save or workdir
    out.mkdir(parents=True, exist_ok=True)
    try:
        isolate(workdir)
        from native_host.demo.browsers import find_browser

        browser = args.browser or find_browser()
        names = ("floor", SAME_SIZE, f"{args.tabs} tab(s)")
        stems = dict(zip(names, ("floor", "floor-same", "browser"), strict=True))
        server_files = {name: out / f"server-{stems[name]}.pstats" for name in names[:2]}
        for path in server_files.values():
            path.unlink(missing_ok=True)  # wait_for must not find an old one
        with (
            floor_provider(profile_out=server_files[names[0]]) as floor,
            launched_browser(browser, args.tabs, workdir) as running,
        ):
            tree_file = workdir / "tree.json"
            capture_root(running.descriptor, tree_file)
            with floor_provider(tree_file, profile_out=server_files[names[1]]) as same:
                targets = [Target(floor), Target(same), Target(running.descriptor, running.pid)]
                servers = [floor.pid, same.pid]
                profiles = [cProfile.Profile() for _ in targets]

                def start_servers() -> None:
                    for pid in servers:
                        os.kill(pid, signal.SIGUSR1)

                progress(f"profiling {args.calls} calls per provider")
                measure_interleaved(targets, args.mode, args.calls, args.warmup, profiles, start_servers)
                for pid in servers:
                    os.kill(pid, signal.SIGUSR2)
                for path in server_files.values():
                    wait_for(path)
        load_after = os.getloadavg()[0]
        print(
            f"`current`, {args.calls} calls per provider, MCP {targets[0].era}, {args.tabs} tab(s); "
            f"load average {load_before:.1f} -> {load_after:.1f}; own times per call in µs, profiler on"
        )
        for name, target, profile in zip(names, targets, profiles, strict=True):
            median = median_ms(target.seconds)
            print(f"\n== {name}: median {median:.2f} ms (profiled), answer {target.tree_bytes} B")
            profile.dump_stats(str(out / f"client-{stems[name]}.pstats"))
            print("client (this process):")
            print("\n".join(report(pstats.Stats(profile), len(target.seconds), args.top)))
            if name in server_files:
                print("floor server:")
                stats = pstats.Stats(str(server_files[name]))
                print("\n".join(report(stats, len(target.seconds), args.top)))
        if args.save:
            print(f"\n.pstats files in {args.save}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
