"""What a doctor check is: `CheckInfo`, one kind of check (a row of `doctor.CHECKS`), and `Check`,
one verdict on one link, with the two ways to make one (`ok`, `broken`).

A broken Check's message ends with its fix ("… Fix: <fix>"), so the text output needs no second
line; `--json` carries the fix separately too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CheckInfo:
    """One kind of check: its `name`, the link it tests, what its failure looks like to the user
    (the browser's error, when there is one), and the general fix."""

    name: str
    link: str
    symptom: str
    fix: str


@dataclass(frozen=True)
class Check:
    """One link's verdict: `name` (a CHECKS name), `ok`, a sentence, and the fix when broken."""

    name: str
    ok: bool
    message: str
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        """`{name, ok, message, fix}`."""
        return {"name": self.name, "ok": self.ok, "message": self.message, "fix": self.fix}


def ok(name: str, message: str) -> Check:
    """A passing Check: `name` (a CHECKS name) and a sentence saying what was found."""
    return Check(name, True, message)


def broken(name: str, message: str, fix: str) -> Check:
    """A failing Check: `name`, what is wrong (a sentence), and the one `fix` (a command or a step),
    which the message repeats at its end."""
    return Check(name, False, f"{message} Fix: {fix}", fix)
