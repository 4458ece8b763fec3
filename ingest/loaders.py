"""Load one file into a `SourceDoc` with its normalised text (SPEC 2.1).

Normalised text: UTF-8 decoded (a leading BOM dropped), Unicode NFC, `\\r\\n` and `\\r`
turned into `\\n`, nothing else. Markdown and plain text keep their own text, markup and
front matter included, so a citation is found character for character in the file a user
opens. HTML and PDF keep their extracted text: HTML headings become `#` lines so sections
survive; PDF pages are separated by a blank line and their start offsets are recorded.
"""

from __future__ import annotations

import hashlib
import io
import re
import unicodedata
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml

from server.core.contracts import SourceDoc
from server.core.errors import InputError

MEDIA = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_H1 = re.compile(r"^#\s+(.+?)\s*(?:\{\s*#[\w-]+\s*\})?\s*$", re.MULTILINE)


class LoadError(InputError):
    """A file that cannot be ingested; the message is the reason reported for it."""


def normalise(text: str) -> str:
    """SPEC 2.1 normalisation of already-decoded text."""
    return unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))


def decode(data: bytes) -> str:
    """Strict UTF-8 (BOM dropped); LoadError for empty, binary or undecodable bytes."""
    if not data.strip():
        raise LoadError("empty file")
    if b"\x00" in data[:8192]:
        raise LoadError("binary file (NUL bytes): not text, Markdown, HTML or PDF")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(f"not UTF-8 (byte {exc.start}): re-save the file as UTF-8") from exc


def front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter of a Markdown text, or {} (a broken block is ignored, not fatal)."""
    match = _FRONT.match(text)
    if not match:
        return {}
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def html_text(data: bytes) -> str:
    """Visible text of an HTML page; h1-h6 become Markdown heading lines."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(decode(data), "html.parser")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    lines: list[str] = []
    blocks = [
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "p",
        "li",
        "pre",
        "td",
        "th",
        "dt",
        "dd",
        "blockquote",
    ]
    for el in soup.find_all(blocks):
        if el.find_parent(blocks) is not None:
            continue
        text = " ".join(el.get_text(" ").split()) if el.name != "pre" else el.get_text()
        if not text.strip():
            continue
        name = str(el.name)
        lines.append(
            f"{'#' * int(name[1])} {text}" if name[0] == "h" and name[1:].isdigit() else text
        )
    if not lines:
        raise LoadError("HTML page has no visible text")
    return "\n\n".join(lines) + "\n"


def pdf_text(data: bytes) -> tuple[str, list[int]]:
    """Text of every page and the offset where each page starts."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise LoadError(f"broken PDF: {exc}") from exc
    starts, parts, pos = [], [], 0
    for text in pages:
        starts.append(pos)
        cleaned = normalise(text).strip("\n") + "\n\n"
        parts.append(cleaned)
        pos += len(cleaned)
    if not "".join(parts).strip():
        raise LoadError("PDF has no extractable text (scanned images need OCR first)")
    return "".join(parts), starts


def _when(value: object, fallback: datetime) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return fallback
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return fallback


def _tags(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(t.strip() for t in value.split(",") if t.strip())
    if isinstance(value, list):
        return tuple(str(t) for t in value)
    return ()


def build_doc(
    rel_path: str,
    data: bytes,
    *,
    mtime: datetime,
    tags: tuple[str, ...] = (),
    source_url_prefix: str | None = None,
    rev: str | None = None,
) -> tuple[SourceDoc, list[int]]:
    """A SourceDoc from raw bytes; also the page start offsets (PDF only, else [])."""
    media = MEDIA.get(Path(rel_path).suffix.lower())
    if media is None:
        raise LoadError(
            f"unsupported file type {Path(rel_path).suffix!r}: use one of {sorted(MEDIA)}"
        )
    pages: list[int] = []
    if media == "pdf":
        text, pages = pdf_text(data)
    else:
        text = normalise(html_text(data) if media == "html" else decode(data))
    meta = front_matter(text) if media == "markdown" else {}
    h1 = _H1.search(text)
    title = str(meta.get("title") or (h1.group(1) if h1 else Path(rel_path).stem))
    source_url = str(meta.get("source_url") or f"{source_url_prefix or ''}{rel_path}")
    content_hash = hashlib.sha256(text.encode()).hexdigest()
    doc = SourceDoc(
        doc_id=str(meta.get("doc_id") or rel_path),
        source_url=source_url,
        path=rel_path,
        title=title,
        text=text,
        rev=rev or content_hash[:12],
        content_hash=content_hash,
        tags=tuple(dict.fromkeys((*_tags(meta.get("tags")), *tags))),
        source_domain=urlparse(source_url).netloc or "local",
        updated_at=_when(meta.get("updated_at") or meta.get("date"), mtime),
        media_type=media,
    )
    return doc, pages


def load_file(
    path: Path,
    root: Path,
    *,
    max_bytes: int,
    tags: tuple[str, ...] = (),
    source_url_prefix: str | None = None,
    rev: str | None = None,
) -> tuple[SourceDoc, list[int]]:
    """Read and build one file; LoadError with the reason when it cannot be ingested."""
    size = path.stat().st_size
    if size > max_bytes:
        raise LoadError(f"{size} bytes is over the {max_bytes}-byte limit (ingest.max_file_bytes)")
    rel = path.relative_to(root).as_posix() if path != root else path.name
    mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    return build_doc(
        rel, path.read_bytes(), mtime=mtime, tags=tags, source_url_prefix=source_url_prefix, rev=rev
    )
