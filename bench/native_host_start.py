"""Native host start: spawn → `hello` answered, spawn → descriptor written, idle RSS.

What it measures
----------------
This script plays the browser: it spawns `python -m native_host chrome-extension://<id>/` exactly
as Chromium does (stdin/stdout pipes, the origin as the only argument), sends the worker's `hello`
at once (the worker sends it ~2 ms after the port opens, chromium-recipe.md §6) and times, on the
`time.monotonic()` clock from just before `Popen`:

- **hello**: until the `result` frame for the hello is read from the host's stdout;
- **descriptor**: until the descriptor file appears in the providers folder (polled every 5 ms);
- **python floor**: the same interpreter answering the first frame with nothing imported (what
  no native host can beat: interpreter start-up and `site`);
- **RSS**: the host's resident memory (VmRSS, MiB) after it has been idle for `--idle-s` seconds
  (default 2) with its endpoint up, and after one `current` MCP call answered by this script on
  the worker's behalf (a 1-element tree), which imports the request path.

It repeats `--runs` times (default 7) with a fresh providers folder each time and prints median,
min and max. Targets (issue "One provider per browser"): hello ≤ 100 ms, descriptor ≤ 1.5 s,
idle RSS ≤ 80 MiB. Nothing touches the user's files: HOME, XDG_* and CONTEXT_PROVIDERS_DIR
point into a temp folder; only processes this script started are ended, by pid.

    .venv/bin/python bench/native_host_start.py [--runs 7] [--idle-s 2] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import psutil

REPO: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.against import run_main  # noqa: E402
from bench.browser import EXTENSION_ID  # noqa: E402
from bench.environment import isolated_env  # noqa: E402

ORIGIN: Final = f"chrome-extension://{EXTENSION_ID}/"
HELLO: Final = {
    "type": "hello",
    "id": "w-1",
    "protocol": "0.2.0",
    "extension": {"id": EXTENSION_ID, "version": "0.1.0"},
    "browser": {"name": "Chromium", "version": "156.0.8078.114", "userAgent": "bench"},
    "settings": {"enabled": True},
}
ROOT: Final = {"id": "app", "role": "Application", "title": "Bench", "attributes": {"version": "0"}}
LIMIT_S: Final = 30.0


def frame(value: Any) -> bytes:
    data = json.dumps(value).encode()
    return struct.pack("=I", len(data)) + data


async def read_frame(stdout: asyncio.StreamReader) -> dict[str, Any]:
    (length,) = struct.unpack("=I", await stdout.readexactly(4))
    result: dict[str, Any] = json.loads(await stdout.readexactly(length))
    return result


FLOOR_SCRIPT: Final = (
    "import os, sys; n = int.from_bytes(os.read(0, 4), sys.byteorder); os.read(0, n); "
    "os.write(1, (2).to_bytes(4, sys.byteorder) + b'{}')"
)
"""The floor: the same interpreter answering the first frame with nothing imported."""


async def floor_run() -> float:
    """Spawn → answer of a Python that imports nothing (interpreter start + site), in ms."""
    spawned = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", FLOOR_SCRIPT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(frame(HELLO))
    await process.stdin.drain()
    async with asyncio.timeout(LIMIT_S):
        await read_frame(process.stdout)
    elapsed = (time.monotonic() - spawned) * 1e3
    process.stdin.close()
    await process.wait()
    return elapsed


async def one_run(root: Path, idle_s: float) -> dict[str, float]:
    providers = root / "providers"
    env = isolated_env(root)
    spawned = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "native_host",
        ORIGIN,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=REPO,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(frame(HELLO))
        await process.stdin.drain()
        async with asyncio.timeout(LIMIT_S):
            reply = await read_frame(process.stdout)
        hello_ms = (time.monotonic() - spawned) * 1e3
        assert reply.get("id") == "w-1" and reply.get("type") == "result", reply
        async with asyncio.timeout(LIMIT_S):
            while not list(providers.glob("*.json")):
                await asyncio.sleep(0.005)
        descriptor_ms = (time.monotonic() - spawned) * 1e3
        descriptor = json.loads(next(providers.glob("*.json")).read_text())
        await asyncio.sleep(idle_s)
        rss_idle = psutil.Process(process.pid).memory_info().rss / (1 << 20)
        await answer_one_current(descriptor, process.stdin, process.stdout)
        await asyncio.sleep(0.5)
        rss_after = psutil.Process(process.pid).memory_info().rss / (1 << 20)
        return {
            "hello_ms": hello_ms,
            "descriptor_ms": descriptor_ms,
            "rss_idle_mib": rss_idle,
            "rss_after_current_mib": rss_after,
        }
    finally:
        process.stdin.close()
        try:
            async with asyncio.timeout(5):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()


async def answer_one_current(
    descriptor: dict[str, Any], stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader
) -> None:
    """Call `current` over MCP while answering the host's `current` frame as the worker would."""
    from native_host.host import open_session
    from native_host.protocol.descriptor import Descriptor

    async def worker() -> None:
        request = await read_frame(stdout)
        while request.get("type") != "current":  # events such as provider.ready {port}
            request = await read_frame(stdout)
        stdin.write(frame({"type": "result", "id": request["id"], "result": {"root": ROOT}}))
        await stdin.drain()

    task = asyncio.create_task(worker())
    async with open_session(Descriptor.model_validate(descriptor), timeout_s=10) as session:
        await session.current()
    await task


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--idle-s", type=float, default=2.0)
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args()
    runs: list[dict[str, float]] = []
    load_before = os.getloadavg()
    for n in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="webctx-bench-") as temp:
            floor_ms = await floor_run()
            runs.append({"python_floor_ms": floor_ms, **await one_run(Path(temp), args.idle_s)})
        if not args.json:
            print(
                f"bench: run {n + 1}: " + ", ".join(f"{k} {v:.1f}" for k, v in runs[-1].items()),
                file=sys.stderr,
                flush=True,
            )
    result = {
        "runs": args.runs,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        **{key: summary([run[key] for run in runs]) for key in runs[0]},
    }
    if not args.json:
        targets = {
            "python_floor_ms": 0,
            "hello_ms": 100,
            "descriptor_ms": 1500,
            "rss_idle_mib": 80,
            "rss_after_current_mib": 80,
        }
        print(f"{'metric':<24}{'median':>9}{'min':>9}{'max':>9}  target")
        for key, target in targets.items():
            s = result[key]
            met = "met" if s["median"] <= target else "NOT met"
            goal = f"≤ {target} ({met})" if target else "(interpreter start, nothing imported)"
            print(f"{key:<24}{s['median']:>9.1f}{s['min']:>9.1f}{s['max']:>9.1f}  {goal}")
    print(json.dumps(result))


if __name__ == "__main__":
    run_main(lambda: asyncio.run(main()), __file__)
