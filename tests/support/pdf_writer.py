"""A tiny PDF writer for tests and benches: pages of Helvetica text lines, standard library only
(ISO 32000-1 §7.5: header, objects, a cross-reference table, trailer), so a test can make a real
multi-page PDF of any size without a PDF library.

```python
data = pdf_bytes([["Page one, line one", "line two"], ["Page two"]], title="A report")
```
"""

from __future__ import annotations

from collections.abc import Sequence

PAGE_WIDTH_PT = 612
PAGE_HEIGHT_PT = 792
"""US Letter, in PDF points (1/72 in)."""
FONT_SIZE_PT = 12
LINE_HEIGHT_PT = 16


def _literal(text: str) -> bytes:
    """`text` as a PDF literal string (§7.3.4.2): Latin-1, `\\`, `(` and `)` escaped."""
    raw = text.encode("latin-1", errors="replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _content(lines: Sequence[str]) -> bytes:
    """A page's content stream: each line at the left margin, one below the other."""
    parts = [b"BT", f"/F1 {FONT_SIZE_PT} Tf {LINE_HEIGHT_PT} TL 72 {PAGE_HEIGHT_PT - 72} Td".encode()]
    for line in lines:
        parts.append(_literal(line) + b" Tj T*")
    parts.append(b"ET")
    return b"\n".join(parts)


def pdf_bytes(pages: Sequence[Sequence[str]], *, title: str = "") -> bytes:
    """A PDF with one page per entry of `pages`, each showing its lines (Latin-1 text; at most
    ~40 lines fit a page). `title`: the document information dictionary's Title ("" for none)."""
    count = len(pages)
    font_obj = 3 + 2 * count
    info_obj = font_obj + 1
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{3 + 2 * i} 0 R".encode() for i in range(count))
        + f"] /Count {count} >>".encode(),
    ]
    for i, lines in enumerate(pages):
        content = _content(lines)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_WIDTH_PT} {PAGE_HEIGHT_PT}] "
            f"/Contents {4 + 2 * i} 0 R /Resources << /Font << /F1 {font_obj} 0 R >> >> >>".encode()
        )
        objects.append(f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    objects.append(b"<< /Title " + _literal(title) + b" >>" if title else b"<< >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info_obj} 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
