"""The provider conformance kit: an executable definition of "conforms" (issue #6).

`rules.py` is the table (rule id → source → check), `checks.py` and `tree_checks.py` the checks
(plain functions over the answers), `evidence.py` what they read, `runner.py` what talks to a
live provider.
docs/conformance.md explains every rule for provider authors; `webctx conformance` runs them.
"""

from native_host.conformance.evidence import Evidence, Outcome, Status
from native_host.conformance.rules import RULES, RULES_BY_ID, Rule
from native_host.conformance.runner import (
    CheckResult,
    Report,
    check_provider,
    check_provider_sync,
    collect,
    find_descriptor,
    run_checks,
)

__all__ = [
    "RULES",
    "RULES_BY_ID",
    "CheckResult",
    "Evidence",
    "Outcome",
    "Report",
    "Rule",
    "Status",
    "check_provider",
    "check_provider_sync",
    "collect",
    "find_descriptor",
    "run_checks",
]
