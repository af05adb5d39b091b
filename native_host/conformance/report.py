"""A conformance report: every rule's verdict on one provider, and the one reader of the rule table.

`run_checks` runs each row of `rules.RULES` over the `Evidence` the runner collected, in table
order; `Report` is what `webctx conformance` prints (text, or one JSON object with `--json`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from native_host.conformance.evidence import Evidence, Status
from native_host.conformance.rules import RULES

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckResult:
    """One rule's verdict in a report."""

    rule: str
    source: str
    status: Status
    message: str

    def to_json(self) -> dict[str, str]:
        """`{rule, source, status, message}`."""
        return {"rule": self.rule, "source": self.source, "status": self.status, "message": self.message}


@dataclass
class Report:
    """A conformance run: which descriptor, which provider, and every rule's verdict."""

    descriptor_path: str | None
    provider: str
    results: list[CheckResult]

    def counts(self) -> dict[str, int]:
        """How many checks ended in each status: `{pass, warn, fail, skip}`."""
        out = {"pass": 0, "warn": 0, "fail": 0, "skip": 0}
        for result in self.results:
            out[result.status] += 1
        return out

    def ok(self, *, strict: bool = False) -> bool:
        """True when nothing failed (and, with `strict`, nothing warned)."""
        bad = ("fail", "warn") if strict else ("fail",)
        return not any(result.status in bad for result in self.results)

    def result(self, rule: str) -> CheckResult:
        """The verdict on `rule`; KeyError when the report has no such rule."""
        for result in self.results:
            if result.rule == rule:
                return result
        raise KeyError(rule)

    def failed_rules(self, *, strict: bool = False) -> set[str]:
        """Ids of the rules that failed (and warned, with `strict`)."""
        bad = ("fail", "warn") if strict else ("fail",)
        return {result.rule for result in self.results if result.status in bad}

    def to_json(self, *, strict: bool = False) -> dict[str, Any]:
        """`{descriptor, provider, ok, strict, counts, results: [CheckResult.to_json()]}`."""
        return {
            "descriptor": self.descriptor_path,
            "provider": self.provider,
            "ok": self.ok(strict=strict),
            "strict": strict,
            "counts": self.counts(),
            "results": [result.to_json() for result in self.results],
        }


def run_checks(evidence: Evidence) -> list[CheckResult]:
    """Every rule of `rules.RULES` over `evidence`, in order. A check that raises (a bug in the
    kit, never the provider's fault) is reported as a fail naming the exception, not raised."""
    results: list[CheckResult] = []
    for rule in RULES:
        try:
            outcome = rule.check(evidence)
            status, message = outcome.status, outcome.message
        except Exception as exc:  # the kit must report, never crash on a provider's answer
            log.exception("conformance check %s crashed", rule.id)
            status, message = "fail", f"the check could not judge the answer ({type(exc).__name__})"
        results.append(CheckResult(rule.id, rule.source, status, message))
    return results
