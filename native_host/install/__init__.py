"""Installing the native messaging host, and `webctx doctor`.

Where each browser looks (`locations`, data), where each browser's program is (`programs`, data,
also read by `webctx demo`), the host manifest and launcher writer (`manifests`,
from the templates in the top-level `manifests/` folder via `templates`), install/uninstall and
their record (`installer`), the Windows registry (`registry`), the Firefox build (`firefox`), the
release zips (`pack`), and the doctor's chain of checks (`doctor` with its `doctor_*` parts).
"""
