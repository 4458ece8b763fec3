"""Load one file into a `SourceDoc` with its normalised text (SPEC 2.1).

Normalised text: UTF-8 decoded (a leading BOM dropped), Unicode NFC, `\\r\\n` and `\\r`
turned into `\\n`, nothing else. Markdown and plain text keep their own text, markup and
front matter included, so a citation is found character for character in the file a user
opens. HTML, reStructuredText and PDF keep their extracted text: HTML headings become `#`
lines so sections survive, reStructuredText is written out as Markdown (`ingest.rst`), PDF
pages are separated by a blank line (a line break where a sentence runs on to the next page)
and their start offsets are recorded (`join_pages`).
"""

from __future__ import annotations

import hashlib
import io
import re
import unicodedata
from datetime import UTC, date, datetime
from pathlib import Path
from stat import S_ISREG
from typing import Any
from urllib.parse import urlparse

import yaml

from server.core.contracts import SourceDoc
from server.core.errors import InputError

MEDIA = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",  # Markdown with JSX (Docusaurus, Nextra): module lines and tags are markup
    ".rst": "rst",  # reStructuredText (Sphinx): read as Markdown text (ingest.rst)
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
SUPPORTED = tuple(MEDIA)  # the endings build_doc reads, in the order error messages list them
# Front matter limits: YAML read from an uploaded file is untrusted. A few aliases are normal
# (`name: &n X` then `title: *n`); aliases of aliases nest exponentially (a 373-byte "alias
# bomb" printed as a 4.9 MB title), so past these counts the file is refused.
MAX_FRONT_MATTER_ALIASES = 10  # alias uses (`*name`) per front matter block
MAX_FRONT_MATTER_DEPTH = 20  # nested lists/mappings; PyYAML composes recursively
# Field limits, in characters unless stated; a title is shown in citations and lists.
MAX_TITLE_CHARS = 300  # longer titles are cut, ending in "…"
MAX_FIELD_CHARS = 2048  # doc_id and source_url (a long URL); longer is refused
MAX_TAGS = 64  # tags from one file's front matter (count); more is refused
MAX_TAG_CHARS = 100  # one tag; longer is refused
_REASON_CHARS = 200  # a library's error text quoted in a reason is cut to this
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
        raise LoadError("empty file: add its text or remove it")
    if b"\x00" in data[:8192]:
        raise LoadError(
            "binary file (NUL bytes): not text, Markdown, reStructuredText, HTML or PDF; export "
            "it as one of those or remove it"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(f"not UTF-8 (byte {exc.start}): re-save the file as UTF-8") from exc


def _check_yaml_shape(block: str) -> None:
    """LoadError when the block uses too many aliases or nests too deeply (events only)."""
    aliases = depth = 0
    for event in yaml.parse(block, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_FRONT_MATTER_ALIASES:
                raise LoadError(
                    f"front matter uses more than {MAX_FRONT_MATTER_ALIASES} YAML aliases "
                    "(*name): write the values out instead of referring to anchors"
                )
        elif isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_FRONT_MATTER_DEPTH:
                raise LoadError(
                    f"front matter nests lists or mappings more than {MAX_FRONT_MATTER_DEPTH} "
                    "deep: flatten it"
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter of a Markdown text, or {} (a broken block is ignored, not fatal).

    LoadError for a block that is hostile rather than broken: too many YAML aliases (an
    alias bomb) or too deep a nesting.
    """
    match = _FRONT.match(text)
    if not match:
        return {}
    try:
        _check_yaml_shape(match.group(1))
        data = yaml.safe_load(match.group(1))
    except (yaml.YAMLError, ValueError, OverflowError):  # bad YAML, impossible dates
        return {}
    except RecursionError as exc:
        raise LoadError("front matter nests too deeply: flatten it") from exc
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


def rst_text(data: bytes) -> str:
    """The Markdown text of a reStructuredText file (`ingest.rst`)."""
    from ingest.rst import to_markdown

    source = normalise(decode(data))
    try:
        text = to_markdown(source)
    except RecursionError as exc:  # docutils parses nested blocks recursively
        raise LoadError(
            "reStructuredText nests too deeply (lists or blocks inside each other): flatten it"
        ) from exc
    except Exception as exc:  # docutils raises its own and plain types on pathological input
        raise LoadError(
            f"not readable reStructuredText: {_reason(exc)}; fix the markup or remove the file"
        ) from exc
    if not text.strip():
        raise LoadError("reStructuredText file has no text (only directives or comments)")
    return normalise(text)


def pdf_text(data: bytes) -> tuple[str, list[int]]:
    """Text of every page and the offset where each page starts."""
    from pypdf import PdfReader

    if b"%PDF-" not in data[:1024]:
        raise LoadError(
            "not a readable PDF: no %PDF- header, so it is not a PDF file; "
            "re-export it or remove it"
        )
    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as exc:  # pypdf raises many types (TypeError, LimitReachedError, ...)
        raise LoadError(f"not a readable PDF: {_reason(exc)}; re-export it or remove it") from exc
    text, starts = join_pages([normalise(page) for page in pages])
    if not text.strip():
        raise LoadError("PDF has no extractable text (scanned images need OCR first)")
    return text, starts


# A line that holds only a list marker: an extraction artifact, a bullet without its item
# (Mozilla's PDFs end pages with runs of "• " lines).
_BULLETS = "•·▪◦‣∙"
_EMPTY_BULLET = re.compile(rf"^[ \t]*[{_BULLETS}][ \t]*(?:\n|$)", re.MULTILINE)
# The last line of a page that stops inside a sentence: a full line of prose ending in a
# lower-case word or a comma ("... you can learn more"), not a heading, a page number or a
# finished sentence.
_UNFINISHED = re.compile(r"^.{30,}[a-z,\-–]$")
# The end of the first sentence on a page that carries one on from the page before.
_SENTENCE_END = re.compile(r"[.!?][\"”’')\]]*(?=\s|$)")
# How far into a page the end of a carried-over sentence is looked for, in characters.
_CARRY_CHARS = 600
# A line of extracted PDF text that reads as a heading: at most 60 characters, no mark of a
# sentence or a list at its end, not a list item ("Your Payment", "Effective March 24, 2026").
_HEADING_LINE = re.compile(rf"^(?![{_BULLETS}*-])[^\n]{{1,60}}(?<![.!?:;,])$")
_HEADING_SHARE = 0.6  # a heading line is at most this share of the page's median line (ours)


def _heading_breaks(page: str) -> str:
    """A page's text with a blank line after each line that reads as a heading
    (`_HEADING_LINE`, and at most `_HEADING_SHARE` of the page's median line) where it stands
    between the page's start, a finished line or another heading and a line that opens with
    a capital: a PDF keeps no heading markup, and without the break the heading lines run
    into the first sentence after them ("Terms of Service Effective March 24, 2026 Mozilla
    Corporation offers ...")."""
    lines = page.split("\n")
    widths = sorted(len(line.strip()) for line in lines if line.strip())
    # a heading is also short beside the page's own lines: a full line of a narrow column
    # is no heading, whatever it ends with
    short = _HEADING_SHARE * widths[len(widths) // 2] if widths else 0.0
    out: list[str] = []
    after_break = True  # the page's start, a blank line, a finished line or a heading
    for line, nxt in zip(lines, [*lines[1:], ""], strict=True):
        text, following = line.strip(), nxt.strip()
        out.append(line)
        heading = (
            after_break
            and len(text) <= short
            and _HEADING_LINE.match(text) is not None
            and following[:1].isupper()
        )
        if heading:
            out.append("")
        after_break = heading or not text or text[-1] in ".!?:"
    return "\n".join(out)


def join_pages(pages: list[str]) -> tuple[str, list[int]]:
    """One text of a PDF's pages, and where each page's own text starts. Pages are separated
    by a blank line, except where a page ends in the middle of a sentence: then by a line
    break, so the sentence stays one paragraph, and that page's start moves past the end of
    the sentence it carries on (within `_CARRY_CHARS`), so its section holds only sentences
    that begin on it. Lines that hold only a bullet are dropped; a line that reads as a
    heading gets a blank line after it (`_heading_breaks`)."""
    parts: list[str] = []
    carried: list[int] = []  # per page: characters of the sentence carried over (0: none)
    last: int | None = None  # the index of the last page with text
    for page in pages:
        cleaned = _heading_breaks(_EMPTY_BULLET.sub("", page)).strip("\n")
        tail = parts[last].rstrip().rsplit("\n", 1)[-1] if last is not None else ""
        carries = bool(cleaned.strip() and _UNFINISHED.match(tail))
        if carries and last is not None:
            parts[last] = parts[last].rstrip("\n") + "\n"
        end = _SENTENCE_END.search(cleaned, 0, _CARRY_CHARS) if carries else None
        skip = 0
        if end is not None:
            skip = end.end()
            while skip < len(cleaned) and cleaned[skip].isspace():
                skip += 1
        carried.append(skip)
        if cleaned.strip():
            last = len(parts)
        parts.append(cleaned + "\n\n")
    starts, pos = [], 0
    for part, skip in zip(parts, carried, strict=True):
        starts.append(pos + skip)
        pos += len(part)
    return "".join(parts), starts


def _reason(exc: BaseException) -> str:
    """A library error's first line, cut to a readable length, or its type's name."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


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


_SCALARS = (str, int, float, date)  # bool is an int; datetime is a date


def _text_field(meta: dict[str, Any], key: str, *, limit: int | None) -> str | None:
    """A front matter value that must be one piece of text; None when absent or empty."""
    value = meta.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, _SCALARS):
        raise LoadError(
            f"front matter {key!r} must be text, not a {type(value).__name__}: "
            f"write it as one line, e.g. {key}: My value"
        )
    text = str(value)
    if limit is not None and len(text) > limit:
        raise LoadError(f"front matter {key!r} is {len(text)} characters, over {limit}")
    return text


def _tags(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        tags = [t.strip() for t in value.split(",") if t.strip()]
    elif isinstance(value, list) and all(isinstance(t, _SCALARS) for t in value):
        tags = [str(t) for t in value]
    else:
        raise LoadError(
            "front matter 'tags' must be a list of words or a comma-separated line, "
            "e.g. tags: [security, keys]"
        )
    if len(tags) > MAX_TAGS:
        raise LoadError(f"front matter has {len(tags)} tags, over the limit of {MAX_TAGS}")
    if any(len(t) > MAX_TAG_CHARS for t in tags):
        raise LoadError(f"front matter has a tag over {MAX_TAG_CHARS} characters")
    return tuple(tags)


def _cap_title(title: str) -> str:
    return title if len(title) <= MAX_TITLE_CHARS else title[: MAX_TITLE_CHARS - 1] + "…"


def media_of(name: str) -> str:
    """The media type build_doc reads a file name as; LoadError naming the supported types."""
    path = Path(name)
    suffix = path.suffix.lower()
    reads = f"citegate reads {', '.join(SUPPORTED)}"
    if not suffix and path.name.startswith(".") and path.name.count(".") == 1:
        raise LoadError(
            f"unsupported file type {path.name!r} (a hidden file with no name before its "
            f"ending): {reads}; rename it, e.g. to notes{path.name}"
        )
    if not suffix:
        raise LoadError(
            f"unsupported file type (no extension): {reads}; rename it with one of these"
        )
    media = MEDIA.get(suffix)
    if media is None:
        raise LoadError(f"unsupported file type {suffix!r}: {reads}")
    return media


def doc_text(rel_path: str, data: bytes) -> tuple[str, list[int]]:
    """The normalised text every offset into the document points at (a PDF's extracted
    pages, an HTML page's visible text, else the decoded file), and the page start offsets
    (PDF only, else []); LoadError when it cannot be read."""
    media = media_of(rel_path)
    if media == "pdf":
        return pdf_text(data)
    if media == "rst":
        return rst_text(data), []
    return normalise(html_text(data) if media == "html" else decode(data)), []


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
    media = media_of(rel_path)
    text, pages = doc_text(rel_path, data)
    meta = front_matter(text) if media == "markdown" else {}
    h1 = _H1.search(text)
    title = _text_field(meta, "title", limit=None) or (h1.group(1) if h1 else Path(rel_path).stem)
    source_url = _text_field(meta, "source_url", limit=MAX_FIELD_CHARS) or (
        f"{source_url_prefix or ''}{rel_path}"
    )
    doc_id = _text_field(meta, "doc_id", limit=MAX_FIELD_CHARS) or rel_path
    content_hash = hashlib.sha256(text.encode()).hexdigest()
    doc = SourceDoc(
        doc_id=doc_id,
        source_url=source_url,
        path=rel_path,
        title=_cap_title(title),
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
    """Read and build one file; LoadError with the reason when it cannot be ingested.

    Reasons name the file by its path under `root` only, never the full path (an upload's
    root is a server temp folder).
    """
    rel = path.relative_to(root).as_posix() if path != root else path.name
    try:
        stat = path.stat()
        if not S_ISREG(stat.st_mode):
            raise LoadError(f"cannot read {rel}: not a regular file (a folder or device)")
        if stat.st_size > max_bytes:
            raise LoadError(
                f"{stat.st_size} bytes is over the {max_bytes}-byte limit (ingest.max_file_bytes)"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise LoadError(
            f"cannot read {rel}: {exc.strerror or type(exc).__name__}; check it exists "
            "and is a readable file"
        ) from exc
    mtime = datetime.fromtimestamp(stat.st_mtime, tz=UTC)
    return build_doc(
        rel, data, mtime=mtime, tags=tags, source_url_prefix=source_url_prefix, rev=rev
    )
