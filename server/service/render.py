"""The cited section as safe HTML: cleaned of doc-generator noise, rendered, span highlighted.

`render_section` takes a document's text and a cited span and returns the section around the
span (its heading to the next heading) rendered by markdown-it-py with raw HTML disabled, so a
source's `<script>` or `<img onerror>` reaches the page as escaped text, never as markup.
Images are disabled too: the page works offline and a source must not make it fetch a URL.
Noise lines of documentation generators go (the rules are `server.core.markdown`'s): heading
anchors `{ #x }`, `::: module.Name` blocks with their indented options, admonition and block
markers (`!!! tip`, `/// note`) and content-tab labels (`=== "Windows"`; the indented body
of an admonition or a tab is kept, one level out); an include `{* path hl[3] *}` becomes a
small "code: path" reference. The exact span is wrapped in `<mark>` elements (one per text
run, so the HTML stays well formed when the span crosses blocks); the first has
`id="highlight"`.

The answer text is rendered by the page, not here: it already arrives in the `/v1/ask`
response, so a small client-side renderer that escapes everything first and then emits only
its own tags (paragraphs, lists, code, http(s) links, citation markers) needs no second round
trip and no new route, while the source section, which the page fetches anyway, needs the
full Markdown grammar that only the server has.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt
from pydantic import BaseModel, ConfigDict

from server.core.markdown import (
    ANCHOR,
    DIRECTIVE,
    FENCE,
    HEADING,
    LIST_ITEM,
    body_start,
    include_target,
    lines,
    section_bounds,
)
from server.service.schemas import SnippetOut

OPEN, CLOSE, REF = "\ue000", "\ue001", "\ue002"  # private-use markers, never left in output
_PRIVATE = re.compile("[\ue000-\ue002]")
_TAG_OR_TEXT = re.compile(r"(<[^>]*>)")  # markdown-it escapes `<` and `>` in text and values
_REF_MARK = re.compile(REF + r"(\d+)" + REF)


class RenderedSection(BaseModel):
    """A section of a source document as safe HTML; `start`/`end` are its characters in the
    document text, `highlighted` is False when the span could not be marked without changing
    the rendering (then `html` is the section unmarked)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    html: str
    start: int
    end: int
    highlighted: bool
    includes: tuple[str, ...] = ()


class RenderedSnippetOut(SnippetOut):
    """`GET /v1/snippets/{id}`: SnippetOut plus the rendered section and where the source is."""

    model_config = ConfigDict(frozen=True)
    path: str | None = None
    link: str | None = None  # source_url when it is an http(s) URL the page may link to
    rendered: RenderedSection | None = None


@dataclass(frozen=True)
class Cleaned:
    """Cleaned text; `pieces` are (source start, source end, cleaned start) of copied runs."""

    text: str
    pieces: tuple[tuple[int, int, int], ...]
    includes: tuple[str, ...]


@cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("default", {"html": False, "linkify": False}).disable("image")


def source_link(url: str) -> str | None:
    """`url` when it is an absolute http(s) URL, else None (a path is shown as text)."""
    return url if re.match(r"https?://[^\s]+$", url) else None


def _indent(line: str) -> int:
    """How many characters of `line` one indentation level is (a tab, or up to 4 spaces)."""
    return 1 if line.startswith("\t") else min(4, len(line) - len(line.lstrip(" ")))


def _line_kind(line: str) -> str:
    """'include', 'api', 'admonition', 'block' for a directive line, else ''."""
    if not DIRECTIVE.match(line):
        return ""
    bare = line.strip()
    if bare.startswith(("{*", "--8<--")):
        return "include"
    if bare.startswith(":::"):
        return "api"
    return "admonition" if bare[:3] in ("!!!", "???", "===") else "block"


class _Builder:
    """Accumulates cleaned text and the map of the runs it copied from the source."""

    def __init__(self, text: str, offset: int) -> None:
        self.text, self.offset, self.size = text, offset, 0
        self.out: list[str] = []
        self.pieces: list[tuple[int, int, int]] = []
        self.includes: list[str] = []

    def copy(self, lo: int, hi: int) -> None:
        if hi <= lo:
            return
        last = self.pieces[-1] if self.pieces else None
        if last and last[1] == self.offset + lo and last[2] + last[1] - last[0] == self.size:
            self.pieces[-1] = (last[0], self.offset + hi, last[2])  # one run, one piece
        else:
            self.pieces.append((self.offset + lo, self.offset + hi, self.size))
        self.out.append(self.text[lo:hi])
        self.size += hi - lo

    def include(self, line: str) -> None:
        """An include line becomes a paragraph of its own holding a REF marker."""
        self.includes.append(include_target(line) or "")
        ref = f"\n{REF}{len(self.includes) - 1}{REF}\n\n"
        self.out.append(ref)
        self.size += len(ref)

    def line_without_anchors(self, pos: int, line: str) -> None:
        start = pos
        for m in ANCHOR.finditer(line):
            self.copy(start, pos + len(line[: m.start()].rstrip(" \t")))
            start = pos + m.end()
        self.copy(start, pos + len(line))


def clean(text: str, offset: int = 0) -> Cleaned:
    """Drop the noise lines of `text` (see the module docstring) and keep an offset map.

    `offset` is added to the source positions in `pieces` (the text's start in its document).
    """
    b = _Builder(text, offset)
    mode = ""  # the directive whose indented lines follow: 'api' or 'admonition'
    for pos, line, code in lines(text):
        blank, indented = not line.strip(), line[:1] in (" ", "\t")
        if mode == "api" and indented and not blank:
            continue  # the options of a `::: module.Name` block
        if mode == "admonition" and (blank or indented):
            b.copy(pos + _indent(line), pos + len(line))  # its body, one level out
            continue
        mode = "" if code else _line_kind(line)
        if code:
            b.copy(pos, pos + len(line))
        elif mode == "include":
            b.include(line)
        elif not mode:
            b.line_without_anchors(pos, line)
    return Cleaned("".join(b.out), tuple(b.pieces), tuple(b.includes))


def _to_cleaned(c: Cleaned, pos: int, *, opening: bool) -> int:
    """Where source position `pos` lands in the cleaned text; inside removed text an opening
    position moves to the next kept character, a closing one to after the previous."""
    before = 0
    for lo, hi, at in c.pieces:
        if lo <= pos <= hi:
            return at + pos - lo
        if pos < lo:
            return at if opening else before
        before = at + hi - lo
    return before


def _nudge_open(text: str, p: int) -> int:
    """Move an opening marker past a line's block syntax (indent, `#`, list marker, fence)."""
    ls = text.rfind("\n", 0, p) + 1
    le = text.find("\n", ls)
    line = text[ls : len(text) if le < 0 else le]
    if FENCE.match(line) and p - ls <= len(line) - len(line.lstrip()):
        return p if le < 0 else le + 1
    head = HEADING.match(line)
    item = LIST_ITEM.match(line)
    prefix = head.start(2) if head else item.end() if item else len(line) - len(line.lstrip())
    return max(p, ls + prefix)


def _nudge_close(text: str, lo: int, p: int) -> int:
    """Move a closing marker back over trailing whitespace, off the start of the next line."""
    while p > lo and text[p - 1] in " \t\n":
        p -= 1
    return p


def _mark(rendered: str) -> str:
    """Replace the OPEN..CLOSE markers by `<mark>` around every text run between them."""
    head, rest = rendered.split(OPEN, 1)
    inside, tail = rest.split(CLOSE, 1)
    parts: list[str] = []
    for part in _TAG_OR_TEXT.split(inside):
        if part.startswith("<") or not part.strip():
            parts.append(part)
        else:  # the first run carries the id the page scrolls to
            opening = "<mark>" if any("<mark" in p for p in parts) else '<mark id="highlight">'
            parts.append(f"{opening}{part}</mark>")
    return head + "".join(parts) + tail


def _refs(rendered: str, includes: tuple[str, ...]) -> str:
    def ref(m: re.Match[str]) -> str:
        path = html.escape(includes[int(m.group(1))])
        return f'<span class="code-ref">code: <code>{path}</code></span>'

    return _REF_MARK.sub(ref, rendered)


def render_section(doc_text: str, start: int, end: int) -> RenderedSection:
    """The section of `doc_text` holding `[start, end)`, cleaned, rendered, span marked.

    The section runs from the heading before `start` to the heading after `end` (front matter
    excluded). Raises ValueError when the span is empty or outside the text.
    """
    if not 0 <= start < end <= len(doc_text):
        raise ValueError(f"span [{start}, {end}) is not inside a text of {len(doc_text)} chars")
    lo = max(section_bounds(doc_text, start)[0], body_start(doc_text))
    hi = max(section_bounds(doc_text, end - 1)[1], end)
    c = clean(_PRIVATE.sub("\ufffd", doc_text[lo:hi]), offset=lo)
    a = _nudge_open(c.text, _to_cleaned(c, max(start, lo), opening=True))
    b = max(a, _nudge_close(c.text, a, _to_cleaned(c, end, opening=False)))
    plain = _markdown().render(c.text)
    marked = _markdown().render(c.text[:a] + OPEN + c.text[a:b] + CLOSE + c.text[b:])
    ok = (
        a < b
        and _PRIVATE.sub("", marked) == _PRIVATE.sub("", plain)
        and marked.count(OPEN) == marked.count(CLOSE) == 1
        and marked.index(OPEN) < marked.index(CLOSE)
    )
    body = _mark(marked) if ok else plain
    return RenderedSection(
        html=_refs(body, c.includes), start=lo, end=hi, highlighted=ok, includes=c.includes
    )
