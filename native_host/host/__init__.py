"""The reference desktop host: find a provider, check it, ask it, keep ids with it.

A desktop host follows the host rules of the concepts page ("Discovery", "Security", "Versions",
"What a host must do"). This package does exactly that, so tests and the `webctx` CLI talk to a
provider the way a real host would::

    discover()                  every descriptor in the providers folder, each usable or rejected
      ├─ check_folder() / read_descriptor_file()   refused if another user could have written it
      └─ check_descriptor()     process alive · bundle id matches · protocol 0.2 · 127.0.0.1 ·
                                listener is the named pid or its descendant   (ProviderRejected)
    choose_provider(pid)        --pid, else the front app (X11), else the only usable provider
    open_session(descriptor)    MCP over Streamable HTTP: bearer token, no Origin, time limits
      └─ ProviderSession.current()   answer's instance/protocol must equal the descriptor's
      └─ ProviderSession.location()  where an element is (design.md §1.2)
      └─ ProviderSession.read_resource()  a page's text or screenshot
    IdBook                      (provider pid, instance) for every id seen; a restart forgets ids

Modules, each one concern:

    processes.py          OS facts: expected bundle id, listeners on a port, descendants, front app
    descriptor_files.py   the host's verdict on the providers folder and each descriptor file
    checks.py             check_descriptor (the design.md §7 checks in order), loopback_port
    discovery.py          ProviderInfo, discover, choose_provider
    ids.py                IdOwner, IdBook, iter_elements
    session.py            open_session, ProviderSession, check_answer, CurrentResult, time limits
    client.py             HostClient for a host that keeps running; blocking `*_sync` for the CLI

Import from here (`from native_host.host import HostClient`); the names below are the public
surface. Nothing here prints, and the token is never logged.
"""

from native_host.host.checks import check_descriptor, loopback_port
from native_host.host.client import (
    HostClient,
    call_tool_sync,
    current_sync,
    fetch_current,
    list_tools_sync,
    locate_sync,
)
from native_host.host.discovery import ProviderInfo, choose_provider, discover
from native_host.host.ids import IdBook, IdOwner, iter_elements
from native_host.host.processes import (
    UNKNOWN_PID,
    BundleIdLookup,
    ListeningSocket,
    expected_bundle_id,
    front_app_pid,
    is_same_or_descendant,
    listener_pids,
    listening_sockets,
)
from native_host.host.session import (
    DEFAULT_TIMEOUT_S,
    READ_TIMEOUT_S,
    ConnectMode,
    CurrentResult,
    ProviderSession,
    check_answer,
    open_session,
    send_read_resource,
)
from native_host.protocol.version import SUPPORTED_PROTOCOL, protocol_supported

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "READ_TIMEOUT_S",
    "SUPPORTED_PROTOCOL",
    "UNKNOWN_PID",
    "BundleIdLookup",
    "ConnectMode",
    "CurrentResult",
    "HostClient",
    "IdBook",
    "IdOwner",
    "ListeningSocket",
    "ProviderInfo",
    "ProviderSession",
    "call_tool_sync",
    "check_answer",
    "check_descriptor",
    "choose_provider",
    "current_sync",
    "discover",
    "expected_bundle_id",
    "fetch_current",
    "front_app_pid",
    "is_same_or_descendant",
    "iter_elements",
    "list_tools_sync",
    "listener_pids",
    "listening_sockets",
    "locate_sync",
    "loopback_port",
    "open_session",
    "protocol_supported",
    "send_read_resource",
]
