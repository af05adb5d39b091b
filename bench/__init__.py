"""Benchmarks against the MCP floor: scripts run as `python bench/<name>.py`, and what they share.

The scripts (all but profile_current.py print a table, then one JSON line; `--json` prints only
the JSON line; results and how to read them in bench/README.md):

  current_latency.py     `current` next to the floor and the same-size floor, both MCP eras
  pointing_bench.py      `location`, native-messaging pings, content scripts per page load
  page_tools_latency.py  a page-tool call and `tools/list` next to the floor
  profile_current.py     cProfile of a `current` call in the client and the floor server
  typing_bench.py        the content scripts' cost per keystroke in a large field
  soak.py                `current` every 50 ms for minutes: is the native host flat?
  native_host_start.py   spawn → `hello`, spawn → descriptor, idle RSS
  bridge_start.py        `webctx mcp`: spawn → `initialize`, spawn → first `tools/list` (`--against REV`)
  page_load.py           a 200,000-element page's DOMContentLoaded and load: webctx, control, none
  page_read.py           `resources/read` of a page's text and screenshot; `current` with the links on/off

The modules they share (imported as `bench.<module>`; each script puts the repository root on
`sys.path` first):

  environment.py  HOME, XDG_* and CONTEXT_PROVIDERS_DIR in a temp folder; progress lines; load average
  stats.py        median, p99 by nearest rank, ratios: one rule for every bench
  floor.py        the floor: `McpEndpoint` over a FakeRequester in a subprocess (`python bench/floor.py`)
  browser.py      a Chromium with the real extension and native host, started as `webctx demo` does
  host_log.py     what the native host's log says: port round trips, bench pings
  interleaved.py  `current` timed across providers in alternating blocks, CPU per call, one row each
"""
