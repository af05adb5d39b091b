"""Every tracked file cites only what is in the repo: no `SPEC §`, `issue <number>` or `research/`
(design.md §n is the design contract; `SCREEN_SPEC` is a name, not a citation)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"(?<!SCREEN_)SPEC §|\b[Ii]ssue [0-9]|research/")
"""A citation of a document that is not in the repo."""


def test_no_tracked_file_cites_a_document_outside_the_repo() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                           check=True).stdout.splitlines()
    hits = []
    for name in files:
        path = REPO / name
        if name == "tests/unit/test_no_outside_citations.py" or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        hits += [f"{name}:{n}" for n, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)]
    assert not hits, f"cite design.md §n or a file in the repo instead: {hits}"
