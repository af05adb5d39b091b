"""The provider conformance kit: an executable definition of "conforms".

```
rules.py            the table: rule id → source → check (one row per rule, in report order)
checks.py           checks on the descriptor, the endpoint's security, MCP and timing
tree_checks.py      checks on the `current` answer's shape and ids      ┐ walk the tree
state_checks.py     checks on roles and the four states                 │ with trees.py
location_checks.py  checks on `location`, when offered                  ┘
evidence.py         what the checks read (Evidence) and return (Outcome)
runner.py           find the descriptor, collect Evidence from a live provider, judge it:
  inspection.py       the descriptor file, its folder, the process, the listeners
  security_probes.py  five HTTP requests the endpoint must refuse
  conversation.py     the MCP sessions (both eras) that call `current` and `location`
report.py           run_checks (the one reader of the table) and the Report it makes
```

docs/conformance.md explains every rule for provider authors; `webctx conformance` runs them.
"""

from native_host.conformance.evidence import Evidence, Outcome, Status
from native_host.conformance.report import CheckResult, Report, run_checks
from native_host.conformance.rules import RULES, RULES_BY_ID, Rule
from native_host.conformance.runner import (
    check_provider,
    check_provider_sync,
    collect,
    find_descriptor,
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
