"""A local attacker without the token that holds half-open HTTP connections (item 2).

Run as a script (standard library only, so it starts fast and imports nothing of webctx):

    python half_open.py <port> <count> <fd_limit> <watch_s>

It lowers its own RLIMIT_NOFILE soft limit to `fd_limit` (a process with an ordinary user's
budget), opens `count` connections to 127.0.0.1:<port> and sends, in turn, nothing; part of the
request headers; complete headers (right Host, no token) and part of a declared body. It prints
one JSON line when all are connected (`{"connected": n, "failed": m}`), then watches them for
`watch_s` seconds and prints one more: `{"closed": n, "open": m, "last_closed_s": t}`, where a
connection counts as closed once the server closed it (recv gives b"" or ECONNRESET) and `t` is
the seconds from the first line to the last close.
"""

from __future__ import annotations

import contextlib
import errno
import json
import resource
import selectors
import socket
import sys
import time


def payload(index: int, port: int) -> bytes:
    """What connection `index` sends: nothing, partial headers, or headers and a partial body."""
    kind = index % 3
    if kind == 0:
        return b""
    if kind == 1:
        return f"POST /mcp/x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Ty".encode()
    return (
        f"POST /mcp/x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Content-Length: 4096\r\n\r\n{\"jsonrpc\": \"2.0\", "
    ).encode()


def main(port: int, count: int, fd_limit: int, watch_s: float) -> None:
    """Open, report, watch, report (the module docstring)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, hard))
    selector = selectors.DefaultSelector()
    sockets: list[socket.socket] = []
    failed = 0
    for index in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        code = sock.connect_ex(("127.0.0.1", port))
        if code not in (0, errno.EINPROGRESS):
            failed += 1
            sock.close()
            continue
        sockets.append(sock)
        selector.register(sock, selectors.EVENT_WRITE, index)
    pending = len(sockets)
    deadline = time.monotonic() + 10.0
    while pending and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            if key.events != selectors.EVENT_WRITE:  # connected already, and closed by the server
                continue
            connecting = key.fileobj
            assert isinstance(connecting, socket.socket)
            selector.unregister(connecting)
            pending -= 1
            if connecting.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                failed += 1
                continue
            data = payload(key.data, port)
            if data:
                with contextlib.suppress(OSError):  # already closed by the server: the watch sees it
                    connecting.send(data)
            selector.register(connecting, selectors.EVENT_READ)
    for key in list(selector.get_map().values()):
        if key.events == selectors.EVENT_WRITE:  # still not connected after 10 s
            selector.unregister(key.fileobj)
            failed += 1
    print(json.dumps({"connected": len(selector.get_map()), "failed": failed}), flush=True)
    started = time.monotonic()
    open_count = len(selector.get_map())
    last_closed = 0.0
    closed = 0
    end = started + watch_s
    while open_count and time.monotonic() < end:
        for key, _ in selector.select(timeout=0.2):
            watched = key.fileobj
            assert isinstance(watched, socket.socket)
            try:
                data = watched.recv(65536)
            except ConnectionResetError:
                data = b""
            except BlockingIOError:
                continue
            if data:
                continue  # a response (the 401 of the body case); the close comes later
            selector.unregister(watched)
            open_count -= 1
            closed += 1
            last_closed = time.monotonic() - started
    result = {"closed": closed, "open": open_count, "last_closed_s": round(last_closed, 3)}
    print(json.dumps(result), flush=True)
    for sock in sockets:
        sock.close()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
