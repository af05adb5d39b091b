"""The webctx error tree. Every error has a stable snake_case `.code` (the one the wire carries).

```
WebctxError              .code: stable snake_case string, the same one the wire carries
├─ FrameError            bad length / UTF-8 / JSON / unknown type → logged, frame dropped
├─ ProvidersFolderError  unsafe providers folder → nothing written, CLI exits 1
├─ DeadlineExceeded      the extension did not answer in time → isError result
├─ PageGone              tab closed or navigated mid-call (code "page_gone")
├─ ExtensionError        the extension answered a request with an `error` frame
├─ TooDeep               the extension's `current` tree nests deeper than MAX_JSON_DEPTH → isError
├─ ProviderUnavailable   host client: no usable provider, or it did not answer in time
├─ ProviderRejected      host client: a descriptor or answer failed a design.md §7 check (.reason)
├─ BrowserNotFound       no Chromium-family browser installed (.fix names the packages)
└─ InstallError          .browser, .path, .fix
```

Messages are sentences that end with the fix where there is one.
"""

from __future__ import annotations


class WebctxError(Exception):
    """Base of every error webctx raises on purpose. `.code` is stable; `str(e)` is for people."""

    code: str = "webctx_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        """The human-readable sentence (same as `str(self)`)."""
        return str(self)


class FrameError(WebctxError):
    """A native-messaging frame was malformed (design.md §4): it is logged (type/size only) and dropped."""

    code = "bad_frame"


class ProvidersFolderError(WebctxError):
    """The providers folder is unsafe (symlink, another user's, group/world accessible; design.md §3).
    Nothing is written."""

    code = "unsafe_providers_folder"


class DeadlineExceeded(WebctxError):
    """A request over the native port got no reply within its deadline (design.md §4)."""

    code = "deadline_exceeded"


class PageGone(WebctxError):
    """The tab was closed or navigated while a request about it was running (design.md §5)."""

    code = "page_gone"


class ExtensionError(WebctxError):
    """The extension answered a request with an `error` frame; `.code` is the extension's code."""

    code = "extension_error"


class TooDeep(WebctxError):
    """A tree the extension (or another profile's host) answered nests JSON deeper than
    `protocol.native.MAX_JSON_DEPTH` levels: not passed on."""

    code = "too_deep"


class ProviderUnavailable(WebctxError):
    """Host client: no usable provider was found, or it did not answer within the time limit."""

    code = "provider_unavailable"


class ProviderRejected(WebctxError):
    """Host client: a descriptor or an answer failed one of the design.md §7 checks; `.reason` says which."""

    code = "provider_rejected"

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class BrowserNotFound(WebctxError):
    """No Chromium-family browser is installed; `.fix` says what to install."""

    code = "browser_not_found"

    def __init__(self, message: str, *, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


class InstallError(WebctxError):
    """Installing or removing a host manifest failed; `.browser`, `.path` and `.fix` say where and how."""

    code = "install_error"

    def __init__(self, message: str, *, browser: str = "", path: str = "", fix: str = "") -> None:
        super().__init__(message)
        self.browser = browser
        self.path = path
        self.fix = fix
