"""`--against REV` for any bench: this checkout and commit REV, run alternately, side by side.

`run_main(main, file)` replaces a bench's `main()` call. Without `--against` it just calls
`main`. With it, a temporary git worktree of REV is made and the bench runs `--against-rounds`
times (default 3) per checkout as `python -m bench.<name> ... --json`, this checkout and REV
alternating (ABBA: each goes first every other round) so that a change in the machine's speed
hits both alike; each child's cwd is its checkout, because `python -m` puts the cwd first on
`sys.path`. Every number in the children's last JSON line is printed as median and p99 (nearest
rank, over rounds) per side, with the ratio this / REV. Benches that interleave finer inside one
process (peers.py, bridge_start.py, selection_read.py) keep their own `--against`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.stats import Summary, ratio

REPO = Path(__file__).resolve().parent.parent
LABEL_KEYS = ("scenario", "code", "mode", "name", "tool", "case")
"""Fields that name a row of a JSON list, used in place of its index."""


@contextlib.contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """A temporary detached git worktree of `rev`, removed on exit. Raises CalledProcessError
    when `rev` is unknown."""
    folder = Path(tempfile.mkdtemp(prefix="webctx-against-")) / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(folder), rev],
                   check=True, capture_output=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)],
                       check=False, capture_output=True)


def flatten(value: Any, prefix: str = "") -> dict[str, float]:
    """Every int/float leaf of a JSON value by dotted path (list rows named by LABEL_KEYS)."""
    if isinstance(value, bool):
        return {}
    if isinstance(value, int | float):
        return {prefix: float(value)}
    out: dict[str, float] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            out |= flatten(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            label = str(index)
            if isinstance(item, dict):
                label = "/".join(str(item[k]) for k in LABEL_KEYS if k in item) or label
            out |= flatten(item, f"{prefix}[{label}]")
    return out


def one_run(module: str, tree: Path, argv: list[str]) -> dict[str, float]:
    """The figures of one `python -m module argv --json` in `tree` (empty when it failed)."""
    done = subprocess.run([sys.executable, "-m", module, *argv, "--json"], cwd=tree,
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        print(f"{module} in {tree} failed ({done.returncode}): {done.stderr[-400:]}", file=sys.stderr)
        return {}
    figures = flatten(json.loads(lines[-1]))
    return {k: v for k, v in figures.items() if not k.startswith(("load_", "cpus"))}


def compare(module: str, rev: str, rounds: int, argv: list[str]) -> dict[str, Any]:
    """Run `module` alternately here and at `rev`; print and return per-figure medians, p99s
    and ratios (this / rev)."""
    runs: dict[str, list[dict[str, float]]] = {"this": [], rev: []}
    load_before = os.getloadavg()
    with checkout(rev) as other:
        trees = {"this": REPO, rev: other}
        for index in range(rounds):
            # ABBA order: neither side always goes first (a warm cache, the other helpers' load)
            for label in (("this", rev) if index % 2 == 0 else (rev, "this")):
                runs[label].append(one_run(module, trees[label], argv))
    keys = sorted({k for side in runs.values() for run in side for k in run})
    rows = []
    print(f"{'figure':<60} {'this p50 / p99':>18} {rev[:10] + ' p50 / p99':>22} {'ratio p50 / p99':>16}")
    for key in keys:
        mine = [r[key] for r in runs["this"] if key in r]
        theirs = [r[key] for r in runs[rev] if key in r]
        if not mine or not theirs:
            continue
        a, b = Summary.of_ms(mine), Summary.of_ms(theirs)
        row = {"figure": key, "this_p50": a.median, "this_p99": a.p99, "against_p50": b.median,
               "against_p99": b.p99, "ratio_p50": ratio(a.median, b.median),
               "ratio_p99": ratio(a.p99, b.p99)}
        rows.append(row)
        print(f"{key:<60} {a.median:>8.1f} / {a.p99:<8.1f} {b.median:>10.1f} / {b.p99:<10.1f} "
              f"{row['ratio_p50']} / {row['ratio_p99']}")
    summary = {"bench": module, "against": rev, "rounds": rounds, "load_before": load_before,
               "load_after": os.getloadavg(), "cpus": os.cpu_count(), "rows": rows}
    print(f"load {load_before} → {summary['load_after']} on {os.cpu_count()} CPUs")
    print(json.dumps(summary))
    return summary


def run_main(main: Callable[[], Any], file: str) -> Any:
    """`main()`'s result; or, with `--against REV [--against-rounds N]` in `sys.argv`, 0 after
    `compare` ran the bench in `file` with the other arguments (the children get `--json`)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--against")
    parser.add_argument("--against-rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    known, rest = parser.parse_known_args(sys.argv[1:])
    if not known.against:
        return main()
    compare(f"bench.{Path(file).stem}", known.against, known.against_rounds, rest)
    return 0
