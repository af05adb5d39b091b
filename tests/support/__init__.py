"""Helpers shared by the tests and the benches (bench/*.py import them with the repo root on sys.path).

One module per concern, each importing only the standard library, the project and its runtime
dependencies (never pytest), so a bench can use it outside a test run:

  requester.py      FakeRequester: plays the extension behind `bridge.Requester` (the native port)
  descriptors.py    make_descriptor: a valid provider descriptor with overridable fields (design.md §3)
  asgi.py           loopback_socket, serving_asgi: an ASGI app on a real uvicorn at 127.0.0.1
  pages.py          served_pages, served_http: a folder (or a handler) over http from a thread
  processes.py      sleeper, reaped_pid: a live child process, the pid of a gone one
  fake_provider.py  FakeProvider, fake_provider: a real MCP server and its descriptor (host/ tests)
  host_process.py   Host: a real `python -m native_host` driven over its stdin/stdout (provider/ tests)
  page_worker.py    the worker's side of the page resources: trees with links, page.read replies
  profiles.py       window, FakeExtension, RecordingConnection: fakes for the profiles hand-off
"""
