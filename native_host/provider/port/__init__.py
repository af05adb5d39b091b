"""The provider's native messaging port: frames on stdin/stdout, the `hello` reply, requests to
the extension's service worker and their replies, the tree it pushes (design.md §4).

`framing` (4-byte length + UTF-8 JSON), `correlator` (replies by id, deadlines), `chain` (one
shape for every request to an extension: `Requester`, `RequestChain` of layers), `bridge` (the
native port's requests, `h-<n>`), `hello`/`early_hello` (the `hello` reply, the early one
before the slow imports), `tree_cache` (`current` from the pushed tree), `bench_ping` (bench only).
Nothing here imports the HTTP side (`provider/http/`; scripts/layering.py checks it).
"""
