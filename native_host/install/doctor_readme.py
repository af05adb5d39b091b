"""Generated documentation sections: docs/troubleshooting.md's table, from the doctor's checks
(`doctor.CHECKS`), and the one writer of marked sections (`replace_section`, also used for the
README's Layout by scripts/layout.py).

`python -m native_host.install.doctor --write-docs` rewrites the table between README_START and
README_END in docs/troubleshooting.md (the markers kept their names); without the flag it prints
it. A unit test compares the file with `troubleshooting_markdown(CHECKS)`, so the docs cannot
drift from the checks doctor runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from native_host.install.doctor_check import CheckInfo


def troubleshooting_markdown(checks: Sequence[CheckInfo]) -> str:
    """The troubleshooting section body (docs/troubleshooting.md): a Markdown table with one row
    per `checks` entry (name, link, symptom, fix; `|` escaped), after two lines on running
    `webctx doctor`."""
    lines = [
        "Run `webctx doctor`: it walks every link below, in this order, and prints the broken ones with",
        "their fix (`--json` for programs; exit status 1 when a link is broken).",
        "",
        "| check | link | when it is broken | fix |",
        "|---|---|---|---|",
    ]
    for info in checks:
        cells = [f"`{info.name}`", info.link, info.symptom, info.fix]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


README_START: Final = "<!-- troubleshooting: generated from native_host/install/doctor.py CHECKS -->"
README_END: Final = "<!-- end of troubleshooting -->"


def write_readme(readme: Path, checks: Sequence[CheckInfo]) -> bool:
    """Replace the text between README_START and README_END in `readme` with the section generated
    from `checks`; return True when the file changed. Raises ValueError when the markers are missing."""
    return replace_section(readme, README_START, README_END, troubleshooting_markdown(checks))


def replace_section(readme: Path, start: str, end: str, body: str) -> bool:
    """Put `body` between the marker lines `start` and `end` of the UTF-8 file `readme`, leaving the
    rest as it is; return True when the file changed. Raises ValueError when a marker is missing.
    The one writer of generated README sections (this one, and scripts/layout.py's Layout)."""
    text = readme.read_text(encoding="utf-8")
    if start not in text or end not in text:
        raise ValueError(f"{readme} lacks the markers {start!r} … {end!r}")
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1]
    new = f"{head}{start}\n{body}{end}{tail}"
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text
