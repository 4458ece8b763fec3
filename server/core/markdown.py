"""Markdown structure rules, in one place: headings, fences, lists, tables and directives.

The chunker (what a section is), the query-time text helpers (what a sentence or an evidence
unit is), the gold verifier and the injection set all read Markdown through these rules, so
they cannot disagree. Line-based on purpose: offsets stay exact slices of the normalised
text, which the citation contract needs (`doc_text[start:end] == quote`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeGuard

# An explicit anchor after a heading's text: `{ #id }` or `{: #id .class }` (Python-Markdown's
# attr_list, as in mkdocs and kramdown) or `[#id]` (Nextra).
HEADING = re.compile(
    r"^(#{1,6})[ \t]+(.+?)[ \t]*(?:\{:?[ \t]*#([\w-]+)[^}\n]*\}|\[#([\w-]+)\])?[ \t]*#*[ \t]*$"
)
FENCE = re.compile(r"^[ \t]*(```|~~~)")
FENCE_RUN = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")  # indent, the whole run ("````"), rest
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
TABLE_ROW = re.compile(r"^[ \t]*\|")
# A setext heading's underline (CommonMark 4.3): under a one-line paragraph, a line of `=`
# makes it a level-1 heading and a line of `-` a level-2 one ("Privacy Policy" then "=====").
# Two dashes at least: a lone "-" is an empty list item.
SETEXT = re.compile(r"^ {0,3}(?:(=+)|-{2,})[ \t]*$", re.MULTILINE)
_SETEXT_TITLE = re.compile(r"^[ \t]*(.+?)[ \t]*(?:\{:?[ \t]*#([\w-]+)[^}\n]*\})?[ \t]*$")
# Documentation-generator directives: an include (`{* ../docs_src/x.py hl[3] *}`), an API
# reference (`::: fastapi.UploadFile`), an admonition or block marker (`!!! tip`, `/// note`),
# a content tab's label (`=== "macOS and Linux"`, mkdocs-material; its content is indented),
# a snippet include (`--8<-- "docs/part.md"`, pymdownx.snippets), an MDX module line outside
# code (`import Tabs from '@theme/Tabs';`, `export const meta = {...}`).
DIRECTIVE = re.compile(
    r"^[ \t]*(?:\{\*.*\*\}|:::[ \t]*\S|!!!|///|\?\?\?|===[+!]?[ \t]+\"|--8<--)"
    r"|^import[ \t][^\n]*\sfrom[ \t]+['\"][^'\"\n]+['\"];?[ \t]*$"
    r"|^export[ \t]+(?:const|let|default|function)\b"
)
# An API reference of mkdocstrings (`::: httpx.Client`, a dotted name): the indented lines
# under it are its options (`:members: headers cookies ...`, `options:` / `members:` / `- file`),
# part of the directive, never prose. A container's type is one word (`::: tip`), and an
# admonition's indented body (`!!! note`) is prose: neither takes lines so.
API_REFERENCE = re.compile(r"^[ \t]*:::[ \t]+[A-Za-z_]\w*(?:\.\w+)+[ \t]*$")
# A line that opens or closes a container block: VitePress and Docusaurus `::: tip`,
# `::: code-group`, a bare closing `:::`; pymdownx blocks `/// note` and `///`.
CONTAINER_FENCE = re.compile(r"^[ \t]*(?::{3,}|/{3,})(?:[ \t]*\S[^\n]*)?$")
INCLUDE = re.compile(r"\{\*\s*([^\s*]+)|^[ \t]*--8<--[ \t]+[\"']([^\"'\n]+)[\"']")
TAB_LABEL = re.compile(r'^[ \t]*===[+!]?[ \t]+"([^"\n]*)"[ \t]*$')
ANCHOR = re.compile(r"\{:?[ \t]*#[\w-]+[^}\n]*\}|\[#[\w-]+\](?=[ \t]*#*[ \t]*$)")
_SLUG = re.compile(r"[^a-z0-9]+")

BlockKind = Literal["heading", "paragraph", "list", "code", "table", "directive", "html"]


@dataclass(frozen=True)
class Heading:
    """A heading line: where it starts, its level, its text and its explicit `{#anchor}`."""

    start: int
    level: int
    text: str
    anchor: str | None


@dataclass(frozen=True)
class Block:
    """A run of lines of one kind, as a half-open span of the text it was read from."""

    kind: BlockKind
    start: int
    end: int


def has_fence(text: str) -> bool:
    """Whether any line of `text` opens or closes a fenced code block."""
    return any(FENCE.match(line) for line in text.splitlines())


def after_fence(line: str, opening: str) -> str | None:
    """What follows a fence of `opening`'s character, at least as long, on `line` (None when
    `line` is no such fence). CommonMark: the fence closes the block only when nothing but
    spaces follows it ("``` [1]" is a line of code)."""
    m = FENCE_RUN.match(line)
    return m.group(3) if m is not None and m.group(2).startswith(opening) else None


def closed(text: str) -> str:
    """`text` with a closing fence added when it ends inside a fenced code block (a lead-in
    whose code was cut at `max_unit_chars` or at its chunk's end): shown unclosed, the code
    block would run on over every claim after it. The fence closes with the characters and
    indentation that opened it."""
    opened: re.Match[str] | None = None
    for line in text.splitlines():
        if opened is None:
            opened = FENCE_RUN.match(line)
        elif (rest := after_fence(line, opened.group(2))) is not None and not rest.strip():
            opened = None
    return text if opened is None else f"{text.rstrip()}\n{opened.group(1)}{opened.group(2)}"


def slugify(text: str) -> str:
    """`Use CORSMiddleware!` -> `use-corsmiddleware`."""
    return _SLUG.sub("-", text.lower()).strip("-") or "section"


def body_start(text: str) -> int:
    """Where the text after a YAML front matter block begins (0 without one)."""
    m = FRONT_MATTER.match(text)
    return m.end() if m else 0


def lines(text: str, start: int = 0, in_code: bool = False) -> Iterator[tuple[int, str, bool]]:
    """(offset, line, in_code) for every line from `start`; fence lines count as code.
    `in_code`: the text starts inside a code block (its first fence line closes it)."""
    in_fence, pos = in_code, 0
    for line in text.splitlines(keepends=True):
        if pos >= start:  # fences before `start` (in front matter) are not counted
            fence = bool(FENCE.match(line))
            yield pos, line, in_fence or fence
            if fence:
                in_fence = not in_fence
        pos += len(line)


def code_spans(text: str) -> list[tuple[int, int]]:
    """Every fenced code block of the text (after any front matter), from its opening fence
    line to the end of its closing one (or of the text, when it is never closed)."""
    spans: list[tuple[int, int]] = []
    start = None
    for pos, line, _ in lines(text, body_start(text)):
        if FENCE.match(line):
            if start is None:
                start = pos
            else:
                spans.append((start, pos + len(line.rstrip("\n"))))
                start = None
    if start is not None:
        spans.append((start, len(text)))
    return spans


def headings(text: str) -> list[Heading]:
    """The headings of a Markdown text in order: ATX (`## Title`) and setext (a one-line
    paragraph underlined with `===` or `---`, as `blocks` reads it); none inside code fences.
    Read once per text: the chunker asks for the heading path of every chunk of a document,
    and a snippet's page for its section's bounds twice."""
    return list(_headings(text))


@lru_cache(maxsize=32)
def _headings(text: str) -> tuple[Heading, ...]:
    body = body_start(text)
    found = []
    for pos, line, code in lines(text, body):
        if not code and (h := HEADING.match(line.rstrip("\n"))):
            found.append(
                Heading(pos, len(h.group(1)), _title(h.group(2)), h.group(3) or h.group(4))
            )
    if not SETEXT.search(text, body):  # the common case: no underline, no second pass
        return tuple(found)
    for block in blocks(text[body:]):
        start, end = body + block.start, body + block.end
        if block.kind == "heading" and (head := _setext(text[start:end])):
            level, title, anchor = head
            found.append(Heading(start, level, _title(title), anchor))
    return tuple(sorted(found, key=lambda h: h.start))


# One bare opening or closing HTML tag (`<div class="termy">`, `</div>`): layout, not content.
HTML_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?>")


def _title(text: str) -> str:
    """A heading's title without HTML tags (GitBook's `<a href="#fees" id="fees"></a>`
    anchor) and with its entities read (`&#x20;`, `&amp;`): "Who pays these fees?
    <a href="#who-pays" id="who-pays"></a>" -> "Who pays these fees?"; as written when that
    leaves nothing."""
    clean = " ".join(html.unescape(HTML_TAG.sub(" ", text)).split())
    return clean or text


def _setext(block: str) -> tuple[int, str, str | None] | None:
    """(level, text, anchor) of a setext heading block (title line, underline), else None."""
    title, _, under = block.partition("\n")
    m = SETEXT.match(under)
    t = _SETEXT_TITLE.match(title)
    if m is None or t is None:
        return None
    return (1 if m.group(1) else 2), t.group(1), t.group(2)


def heading_path(text: str, pos: int) -> tuple[str, ...]:
    """The texts of the headings `pos` sits under, outermost first ("Security" > "OAuth2"):
    the last heading at or before `pos` and each earlier one of a higher level."""
    path: list[Heading] = []
    for h in headings(text):
        if h.start > pos:
            break
        path = [p for p in path if p.level < h.level] + [h]
    return tuple(h.text for h in path)


def section_bounds(text: str, pos: int) -> tuple[int, int]:
    """The span of the section holding `pos`: its heading line to the next heading."""
    starts = [h.start for h in headings(text)]
    lo = max((s for s in starts if s <= pos), default=0)
    hi = min((s for s in starts if s > pos), default=len(text))
    return lo, hi


# A template tag of a static-site generator: Hugo's shortcodes (`{{< tab >}}`,
# `{{% note %}}`, `{{% /note %}}`) and Liquid, Jinja or GitBook tags (`{% hint style="info" %}`,
# `{% endhint %}`). Layout around the prose, like an HTML tag; one line at most.
TEMPLATE_TAG = re.compile(r"\{\{[<%].*?[%>]\}\}|\{%.*?%\}")
# Text that is template tags only (a line of them, or an HTML block of such lines).
TEMPLATE_LINE = re.compile(rf"\s*(?:(?:{TEMPLATE_TAG.pattern})\s*)+")
# The start of an HTML or JSX tag whose attributes run on over the next lines (`<Video` then
# `src="..."` and `/>`, MDX): those lines are the tag, not prose.
_OPEN_TAG = re.compile(r"^[ \t]*<[A-Za-z][\w.:-]*(?:[ \t]+[^>]*)?$")


def _kind(line: str) -> BlockKind:
    stripped = line.strip()
    if HEADING.match(line.rstrip("\n")):
        return "heading"
    if DIRECTIVE.match(line) or CONTAINER_FENCE.match(line.rstrip("\n")):
        return "directive"
    if TABLE_ROW.match(line):
        return "table"
    if LIST_ITEM.match(line):
        return "list"
    tag = stripped.startswith("<") and stripped.endswith(">")
    if tag or TEMPLATE_LINE.fullmatch(line.rstrip("\n")):
        return "html"
    return "paragraph"


def _list_indent(cur: Block, text: str) -> int:
    """The indentation of a list's items: of its first line, or, when the list opens the
    fragment (a chunk, whose first line lost its indentation to trimming), of its next item
    line."""
    body = text[cur.start : cur.end].split("\n")
    if cur.start == 0:
        later = next((ln for ln in body[1:] if LIST_ITEM.match(ln)), None)
        if later is not None:
            return indent(later)
    return indent(body[0])


def _joins(cur: Block, kind: BlockKind, line: str, text: str) -> bool:
    """Whether a non-blank `line` of `kind` continues the open block `cur` (read from
    `text`). A list goes on with indented lines, but not past a directive no deeper than its
    first item: in Pydantic's docs a list of code notes inside a tab is followed by the
    admonition `??? example` one level out, which took in everything after it."""
    if cur.kind == "list":
        if kind == "directive" and indent(line) <= _list_indent(cur, text):
            return False
        return kind == "list" or line[:1] in (" ", "\t")
    if cur.kind == "directive":
        head = text[cur.start : cur.end].split("\n", 1)[0]  # its first line
        return API_REFERENCE.match(head) is not None and indent(line) > indent(head)
    return cur.kind == kind and kind in ("paragraph", "table", "html")


def _underlines(cur: Block | None, last: int, line: str) -> TypeGuard[Block]:
    """Whether a non-code `line` underlines the one-line paragraph `cur` (which started on
    the line before, at `last`) into a setext heading."""
    return (
        cur is not None
        and cur.kind == "paragraph"
        and cur.start == last
        and SETEXT.match(line.rstrip("\n")) is not None
    )


# CommonMark 4.4: a line indented by this many columns (a tab is 4) after a blank line, a
# heading or the start is code, outside a list or a directive, whose bodies are indented too
# (Django REST framework's docs write every example so).
INDENTED_CODE = 4


def indent(line: str) -> int:
    """The columns of white space that open `line`, a tab counting 4."""
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


@dataclass
class _Reading:
    """What `blocks` carries from line to line besides the open block."""

    in_tag: bool = False  # inside a tag opened on an earlier line (a blank line ends it)
    container: bool = False  # inside a list or a directive (admonition, tab), bodies indented
    margin: bool = False  # a line at the margin was read: indentation means something
    blank: bool = True  # the line before was blank (or none was read)


def _line_kind(line: str, cur: Block | None, state: _Reading) -> BlockKind:
    """The kind of a non-blank line outside fenced code, `state` updated: a line in or
    opening an HTML tag is HTML; an indented one may be code (`_indented_code`), once a
    line at the margin was read: a chunk that starts inside an admonition or a tab starts
    indented, and is prose."""
    kind = _kind(line)
    if state.in_tag or _OPEN_TAG.match(line.rstrip("\n")):
        kind, state.in_tag = "html", ">" not in line
    cols = indent(line)
    after_blank, state.blank = state.blank, False
    if state.margin and _indented_code(cols, state.container, cur, state.in_tag):
        return "code"
    if cols < INDENTED_CODE:
        if kind in ("list", "directive"):
            state.container = True
        elif after_blank:  # a new block at the margin; a lazy continuation line stays inside
            state.container = False
        state.margin = True
    return kind


def _indented_code(cols: int, container: bool, cur: Block | None, in_tag: bool) -> bool:
    """Whether a non-blank line indented by `cols` columns is indented code: never inside
    a list or directive (`container`) or an open HTML tag, never continuing a paragraph
    (CommonMark: indented code cannot interrupt one)."""
    return (
        cols >= INDENTED_CODE
        and not container
        and not in_tag
        and (cur is None or cur.kind in ("code", "heading"))
    )


def blocks(text: str, in_code: bool = False, in_list: bool = False) -> list[Block]:
    """Block structure of a Markdown fragment: headings, paragraphs, lists (with their
    indented continuation lines), whole code fences, indented code (`INDENTED_CODE`),
    tables, directives and HTML lines.

    Blank lines end a paragraph or table; a list goes on across blank lines while its next
    line is another item or indented, and indented code while its next line is indented.
    Spans are exact and never include the trailing newline. `in_code`: the fragment starts
    inside a code block, whose rest up to the first fence line is one code block. `in_list`:
    it starts inside a list item (a chunk cut there): its first line goes on that item, so
    what is indented after it is the item's body, not indented code, until a new block at
    the margin.
    """
    out: list[Block] = []
    cur: Block | None = Block("code", 0, 0) if in_code else None
    state = _Reading(container=in_list, blank=not in_list)
    last = -1  # where the previous line starts
    for pos, line, code in lines(text, 0, in_code):
        end = pos + len(line.rstrip("\n"))
        if not code and _underlines(cur, last, line):
            out.append(Block("heading", cur.start, end))
            cur, last = None, pos
            continue
        last = pos
        if not code and not line.strip():
            state.in_tag, state.blank = False, True
            if cur is not None and cur.kind not in ("list", "code"):  # indented code goes on
                out.append(cur)
                cur = None
            continue
        kind = "code" if code else _line_kind(line, cur, state)
        opening = code and FENCE.match(line) is not None and (cur is None or cur.kind != "code")
        if (
            cur is not None
            and not opening
            and (cur.kind == "code" == kind or _joins(cur, kind, line, text))
        ):
            cur = Block(cur.kind, cur.start, end)
        else:
            if cur is not None:
                out.append(cur)
            cur = Block(kind, pos, end)
        if code and FENCE.match(line) and not opening:
            out.append(cur)  # the closing fence ends the code block
            cur = None
    if cur is not None:
        out.append(cur)
    return out


def tab_label(line: str) -> str | None:
    """The title of a content-tab label line (`=== "Zsh"` -> `Zsh`), else None."""
    m = TAB_LABEL.match(line)
    return m.group(1).strip() if m else None


def include_target(line: str) -> str | None:
    """The file an include directive (`{* path ... *}`, `--8<-- "path"`) names, else None."""
    m = INCLUDE.search(line)
    return (m.group(1) or m.group(2)) if m else None
