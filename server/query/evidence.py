"""Evidence units: what a claim may cite, read from a chunk's Markdown structure.

A unit is one exact span of a chunk that can stand on its own as an answer:
- a sentence of a paragraph;
- a sentence that leads into a list, table or code block, together with that block (a lead-in
  never stands without what it introduces: when the block is not in the chunk, the lead-in is
  not a unit at all);
- a sentence that leads into a documentation-generator include (`{* docs_src/app.py *}`) whose
  file is not in the corpus: the sentence, with the include's target as a `reference`;
- a content tab's label with the code, list or table right under it (`=== "Zsh"` over the
  zsh command, mkdocs-material), shown as "Zsh:" and what it labels;
- a list item on its own;
- a table's body row on its own, when no sentence leads into the table, with its header
  row's cells as the column names it is scored under (code with no sentence before it is
  no unit).

A block indented under a tab or an admonition is shown one level out (dedented); its quote
stays the exact span.

A unit never crosses a fenced span (text that addresses the model, SPEC 7.3): spans passed
as `exclude`, and the runs of `FENCE_FILLER` that `server.query.integrity.verify.fence`
leaves where it blanked one. A sentence ends where a fenced span begins and starts again
after it, so the clean sentences beside an attack stay units; a unit that would take a
fenced span in (a lead-in whose code block holds a fenced comment, a list item) is dropped.

Each unit also says what it is *not*: a pointer to other reading ("Read more about it in the
docs"), an entry of a list of changes (release notes), a verb-less fragment, the writer's
aside in the first person ("This combination ... was my favorite backend stack"). These are
decided from general features (link share, a reading verb before a link, an issue or
pull-request number, a word count, "I" or "my" before a lower-case word outside code and
quotes), never from one corpus's phrases. An aside answers only a question about what
someone said, thought, meant or recommends (the author's view, a song's story, "which library
should I use").
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from server.core import markdown
from server.core.contracts import Chunk, Hit
from server.core.text import (
    CODE_SPAN,
    HEADING_SEPARATOR,
    HTML_COMMENT,
    SENTENCE_STOP,
    content_words,
    display,
    embed_input,
)
from server.query.answer_types import asks_how_to, instructs_closely, leads

# Shown under a list, table or code block that goes on past the unit, after a blank line
# (right under a table a line is one more row of it).
CUT_MARK = "\n\n…"
FENCE_FILLER = "\u2007"  # == server.query.integrity.injection.FILLER (no import: layering)
_FILLER_RUN = re.compile(FENCE_FILLER + r"[" + FENCE_FILLER + r"\s]*")
UnitKind = Literal["sentence", "lead_in", "item", "code", "row"]
# A table's delimiter row ("| --- | :---: |", "---|---"): the line under its header row.
_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")

# A sentence ends at ".", "!" or "?" before a capital or a digit, not after an abbreviation
# ("U.S. Dollars", "e.g. `Item`": `text.SENTENCE_STOP`), and at the end of a line after one
# of them or ":".
_SENT_END = re.compile(SENTENCE_STOP + r"[ \t]+(?=[\"'(\[*_`]?[A-Z0-9])|(?<=[.!?:])\n")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")
_ISSUE = re.compile(r"(?:PR|pull request|issue)?\s*#\d{2,}\b|/pull/\d+|/issues/\d+", re.I)
# A reading verb that opens the sentence, after connectives ("And then", "Also"), a purpose
# or condition up to its comma ("To see all the options,", "If you want to know more,"), a
# "you (can|will ...) (also)" or a "For more details," lead-in (up to its comma: "For more
# information on using proxies in HTTPX, see [HTTP Proxying](...)").
_READING_VERB = re.compile(
    r"^\W*(?:(?:and|then|so|also|now|next|but|please)\W+)*"
    # a purpose or condition before it: "To see all the other options, read the [docs](...)"
    r"(?:(?:to|if|when)\s+[^,.;:]{1,80},\s*)?"
    r"(?:for\s+(?:more|further|additional|the\s+full)\s+\w+(?:\s+\w+)?"
    r"(?:\s+(?:on|about|of|regarding)\b[^,.;:]{1,80},)?\W+)?"
    r"(?:you\s+(?:(?:can|could|will|would|might|should|may)\s+)?(?:also\s+)?)?"
    r"(?:read|see|check|learn|refer|visit|find|look|go|head|consult)\b",
    re.I,
)
# "We provide more information about [X](...)", "More details are in the guide": an offer of
# more to read elsewhere, a pointer like a reading verb.
_MORE_TO_READ = re.compile(
    r"^\W*(?:(?:we|you)\s+(?:\w+\s+)?(?:provide|give|offer|find|get|have)\s+)?"
    r"(?:more|further|additional)\s+(?:information|details|info)\b",
    re.I,
)
# The document speaking of itself: "This page outlines the basics of running Gunicorn.", "This
# guide describes the information GitHub needs ...": what is to come, not what is so.
_ABOUT_THE_PAGE = re.compile(
    r"^\W*(?:this|the\s+following|the\s+next)\s+"
    r"(?:page|section|chapter|guide|tutorial|document|article|part)\s+"
    r"(?:of\s+the\s+\w+\s+)?(?:\w+ly\s+)?"
    r"(?:outlines?|describes?|covers?|explains?|shows?|lists?|walks|introduces?|gives|"
    r"contains?|documents?|discusses?|will|is\s+about|focuses|provides?|presents?|"
    r"summari[sz]es)\b",
    re.I,
)
_READING_TARGET = re.compile(
    r"\b(?:docs?|documentation|section|chapter|guide|tutorial|page|article|reference|below|"
    r"above|here|link)\b",
    re.I,
)
# A web address written out: an autolink ("<https://...>") or a bare URL.
_URL = re.compile(r"<https?://[^>\s]+>|\bhttps?://\S+")
# A line of layout: one bare HTML tag, or template tags (`{{< /tab >}}`, `{% endhint %}`).
_TAG_LINE = re.compile(rf"\s*{markdown.HTML_TAG.pattern}\s*|{markdown.TEMPLATE_LINE.pattern}")
_LINK_ONLY = 0.75  # share of readable characters in link text above which a text is a link
_MIN_WORDS = {"sentence": 3, "item": 2, "row": 2}  # content words below: a fragment
# A credit: an @handle, or an issue number, linked or not ("by [@dependabot[bot]](https://
# github.com/apps/...)", "PR [#11011](https://github.com/.../pull/11011)").
_CREDIT = re.compile(r"\[?(?:@[\w.-]+(?:\[bot\])?|#\d+)\]?(?:\([^)\s]*\))?")
# A section of a change log: a heading that is a version ("0.95.0", "v2.1.3", with an
# optional release date) or that names a list of changes as a whole.
_CHANGE_SECTION = re.compile(
    r"(?:^|/)(?:v?\d+(?:-\d+){2,}(?:-\d{4}-\d{2}-\d{2})?|changelog|changes|latest-changes|"
    r"release-notes|whats-new|unreleased)(?:/|$)"
)
_EMOJI_START = re.compile(r"^\W*[\U0001F300-\U0001FAFF\u2600-\u27BF]")
_ASKS_LINK = re.compile(r"\b(?:link|url|where (?:can|do) i (?:read|find|learn))\b", re.I)
# The writer speaking of themself: "I" or "my" before a lower-case word, "I'm" (not "World
# War I and": an "I" after a capitalised word inside the sentence is a numeral; code spans
# and quotations are removed first).
_FIRST_PERSON = re.compile(
    r"(?:^|(?<=[\s(,;:—-]))(?:(?P<i>I)\s+[a-z]\w*|I'(?:m|ve|d|ll)\b|[Mm]y\s+[a-z]\w*)"
)
_WORD_BEFORE = re.compile(r"(\S+)\s+$")
# A tutorial's narration ("I'll show you later", "here I will explain") is no aside: the
# sentence around it still states something ("... a single process per container, but I'll
# tell you about it later").
_NARRATION = re.compile(
    r"I(?:'ll|\s+will)\s+(?:\w+\s+)?(?:show|tell|explain|teach|cover|talk|walk|give|guide)\b"
)
_QUOTED = re.compile(r"``.*?''|`[^`]*`|\"[^\"]*\"|“[^”]*”")
_ASKS_WORDS = re.compile(
    r"\b(?:said|say|says|views?|opinions?|think|thinks|thought|believes?|feel|felt|meaning|"
    r"means|story|quote|claimed|author|creator|wrote|written|inspir\w*|history|favou?rite|name|"
    r"recommend\w*|suggest\w*|prefer\w*|best)\b|\bshould\s+I\s+use\b|\bwhich\s+(?:\w+\s+)?should\b",
    re.I,
)
_ASKS_VERSION = re.compile(
    r"\b(?:version|release|released|changelog|added in|since when|deprecat\w*|removed|dropped|"
    r"no longer|what happened to|still (?:supported|works?|available|exists?))\b|\d+\.\d+",
    re.I,
)


def sentence_parts(text: str) -> list[str]:
    """`text` cut at its sentence ends (a joined citation read as its units); a lead-in keeps
    the list or code after its colon, as a unit does."""
    cuts = [m.start() for m in _SENT_END.finditer(text) if text[m.start() - 1] != ":"]
    bounds = [0, *cuts, len(text)]
    return [p for a, b in itertools.pairwise(bounds) if (p := text[a:b].strip())]


@dataclass(frozen=True)
class Unit:
    """One citable unit: exact document offsets, the exact text and how to show it."""

    start: int
    end: int
    quote: str  # == document text[start:end]
    display: str  # for reading: prose cleaned of link and emphasis syntax, code verbatim
    kind: UnitKind
    reference: str | None = None  # an include directive's target, shown, never claimed
    pointer: bool = False
    changelog: bool = False
    fragment: bool = False
    aside: bool = False
    header: str = ""  # a table row's column names ("Name | Description | Expiration")

    @property
    def scored(self) -> str:
        """What the unit is read as for scoring: a table row under its column names, which
        say what each cell is ("Expiration" over "Two weeks")."""
        return f"{self.header}\n{self.display}" if self.header else self.display

    @property
    def meta(self) -> bool:
        """A unit that talks about other text, or about its writer, rather than stating
        something."""
        return self.pointer or self.changelog or self.fragment or self.aside


def _sentences(
    text: str, start: int, end: int, fences: Sequence[int] = ()
) -> Iterator[tuple[int, int]]:
    """Sentence spans of one paragraph block (trimmed, never empty); a sentence also ends at
    every offset of `fences` (where a fenced span begins or ends)."""
    cursor = start
    cuts = [start + m.start() for m in _SENT_END.finditer(text[start:end])]
    cuts = sorted({*cuts, *(f for f in fences if start < f < end)})
    for cut in [*cuts, end]:
        lo, hi = cursor, cut
        while lo < hi and text[lo].isspace():
            lo += 1
        while hi > lo and text[hi - 1].isspace():
            hi -= 1
        if hi > lo:
            yield lo, hi
        cursor = cut


def link_share(text: str) -> float:
    """Share of a text's readable characters (link targets not counted) that are link text."""
    anchors = sum(len(m.group(1)) for m in _LINK.finditer(text))
    readable = len(_LINK.sub(lambda m: m.group(1), text).strip())
    return anchors / readable if readable else 0.0


def is_pointer(text: str) -> bool:
    """Sends the reader elsewhere instead of saying something: mostly a link, or a reading
    verb ("read", "see", "check", ...) aimed at a link or at other documentation."""
    bare = text.strip()
    if link_share(bare) > _LINK_ONLY:
        return True
    return bool(_READING_VERB.search(bare) or _MORE_TO_READ.search(bare)) and bool(
        _LINK.search(bare) or _URL.search(bare) or _READING_TARGET.search(bare)
    )


def _links_list(text: str) -> bool:
    """The text holds a list and each of its items is a link: a table of contents ("To help
    you get started, we'll cover a few important topics:" over links to four pages), which
    sends the reader elsewhere however its lead-in reads."""
    lines = text.splitlines()
    items = [markdown.LIST_ITEM.sub("", ln) for ln in lines if markdown.LIST_ITEM.match(ln)]
    return bool(items) and all(link_share(i) > _LINK_ONLY for i in items)


def is_aside(text: str) -> bool:
    """The writer speaks of themself ("I tried ...", "my favorite stack"), outside code spans
    and quotations."""
    bare = _QUOTED.sub(" ", text)
    for m in _FIRST_PERSON.finditer(bare):
        before = _WORD_BEFORE.search(bare[: m.start()])
        numeral = m.group("i") and before and before.start() > 0 and before.group(1)[:1].isupper()
        if not numeral and not _NARRATION.match(bare, m.start()):
            return True
    return False


def in_change_log(section_id: str) -> bool:
    """The section is (inside) a change log: a version heading or a list-of-changes one."""
    return bool(_CHANGE_SECTION.search(section_id))


def is_changelog(text: str) -> bool:
    """An entry of a list of changes: names an issue or pull request, or opens with an emoji
    and links somewhere (release-note style)."""
    return bool(_ISSUE.search(text)) or bool(_EMOJI_START.search(text) and _LINK.search(text))


def _said(prose: str) -> list[str]:
    """The content words a text says, without the issue numbers and credits it names
    ("PR #11011 by @dependabot." says nothing; a web address written out says where)."""
    return content_words(_ISSUE.sub(" ", _CREDIT.sub(" ", prose)))


def _item_parts(prose: str) -> tuple[str, str]:
    """An item's own text and the list or code nested under it, dedented and shown line by
    line as a lead-in's block is: read as one line, "The frontend needs to fetch some more
    data from the API." over its three sub-items was shown "... from the API. * But it needs
    authentication ... * So, ..."."""
    pos = 0
    for n, line in enumerate(prose.splitlines(keepends=True)):
        if n and (markdown.LIST_ITEM.match(line) or markdown.FENCE.match(line)):
            return prose[:pos], textwrap.dedent(prose[pos:]).strip()
        pos += len(line)
    return prose, ""


def display_block(block: str) -> str:
    """A block a unit shows under its sentence or item (a list, a table, code), line by line:
    code verbatim, every other line read as `display` reads prose, with its indentation and
    list marker kept. Shown raw, a lead-in's list read "* directly supports [unlawful active
    attack or malware campaigns](/site-policy/acceptable-use-policies/...) that ...", where
    the sentence over it shows a link as its text."""
    shown = []
    for _, line, code in markdown.lines(block):
        text = line.rstrip("\n")
        if code or not text.strip():
            shown.append(text)
            continue
        indent = text[: len(text) - len(text.lstrip())]
        shown.append(indent + display(text))
    return "\n".join(shown)


def _marker_end(text: str) -> int:
    m = markdown.LIST_ITEM.match(text)
    return m.end() if m else 0


# A container's opening line: `::: code-group`, `::: tip`, `/// note` (not a bare `:::`).
_CONTAINER_OPENS = re.compile(r"[ \t]*(?::{3,}|/{3,})[ \t]*\S")


def _layout_line(line: str) -> bool:
    """A line of layout around the block a lead-in introduces: a bare tag or template tags
    (`_TAG_LINE`), or a container's opening or closing line (`::: code-group`, `:::`)."""
    return _TAG_LINE.fullmatch(line) is not None or markdown.CONTAINER_FENCE.match(line) is not None


def _bare_code(text: str, block: markdown.Block | None) -> bool:
    """Whether `block` is indented code (`markdown.INDENTED_CODE`), not a fence: a lead-in
    shows it fenced, as fenced code is."""
    return (
        block is not None
        and block.kind == "code"
        and markdown.FENCE.match(text[block.start : block.end]) is None
    )


def _unit(
    text: str,
    base: int,
    lo: int,
    hi: int,
    kind: UnitKind,
    *,
    prose_end: int | None = None,
    reference: str | None = None,
    bare: bool = False,
    cut: bool = False,
) -> Unit:
    """A unit over text[lo:hi]; for a lead-in, text[lo:prose_end] is its sentence and the
    rest the block it introduces (shown verbatim, line by line; fenced when it is indented
    code, `bare`). A block taken only in part (`cut` at `max_chars`, or code whose chunk
    ends before its closing fence) is shown closed and followed by a line "…" (`CUT_MARK`):
    "Using `UploadFile` has several advantages over `bytes`:" over two of its five items must
    not read as the whole list."""
    quote = text[lo:hi]
    if kind == "code":
        prose, shown = "", quote.strip()
    elif kind == "row":
        prose = " ".join(_cells(quote))
        shown = " | ".join(display(c) for c in _cells(quote))
    elif kind == "item":
        prose = text[lo + _marker_end(quote) : hi]
        own, nested = _item_parts(prose)
        shown = f"{display(own)}\n{display_block(nested)}" if nested else display(own)
    else:
        prose = text[lo : prose_end if prose_end is not None else hi]
        rest = text[prose_end:hi] if prose_end is not None else ""
        if not bare:
            rest = HTML_COMMENT.sub("", rest)
            rest = "".join(  # layout lines around the block go; a tag line inside code is code
                ln
                for _, ln, code in markdown.lines(rest)
                if code or not _layout_line(ln.rstrip("\n"))
            )
        rest = textwrap.dedent(rest).strip("\n")  # a block indented under a tab or admonition
        rest = f"```\n{rest}\n```" if bare else display_block(rest.strip())
        label = markdown.tab_label(prose)
        said = f"{label}:" if label is not None else display(prose)
        shown = f"{said}\n{rest}" if rest else said
        if reference is not None and shown.endswith(":"):  # its content is the reference
            shown = shown[:-1].rstrip() + "."
    closed = markdown.closed(shown)  # code cut short is still shown as a closed block
    # a lead-in's block starts in the unit, so a fence the display lacks is one it cut off
    # (an item of a chunk that opens in code may hold the fence that closes that code)
    if kind == "lead_in" and (cut or closed != shown):
        closed += CUT_MARK
    return Unit(
        start=base + lo,
        end=base + hi,
        quote=quote,
        display=closed,
        kind=kind,
        reference=reference,
        pointer=bool(prose)
        and (
            is_pointer(prose)
            or _links_list(quote)
            or (kind == "sentence" and _ABOUT_THE_PAGE.search(prose) is not None)
        ),
        changelog=bool(prose) and is_changelog(prose),
        fragment=kind in ("sentence", "item", "row") and len(_said(prose)) < _MIN_WORDS[kind],
        aside=bool(prose) and is_aside(prose),
    )


def _items(text: str, block: markdown.Block) -> Iterator[tuple[int, int]]:
    """Top-level items of a list block (those indented least: a whole list may sit indented
    under a tab or an admonition), each with its indented continuation lines."""
    marked = [
        (pos, len(line) - len(line.lstrip(" \t")))
        for pos, line, _ in markdown.lines(text[block.start : block.end])
        if markdown.LIST_ITEM.match(line)
    ]
    least = min((indent for _, indent in marked), default=0)
    starts = [pos + least for pos, indent in marked if indent == least]  # from the marker
    starts = [block.start + s for s in starts] or [block.start]
    ends = [*starts[1:], block.end]
    for lo, stop in zip(starts, ends, strict=True):
        hi = lo + len(text[lo:stop].rstrip())
        if hi > lo:
            yield lo, hi


def _said_end(text: str, lo: int, hi: int) -> int:
    """Where item text[lo:hi] ends as a unit: before its last sentence when that ends in ":"
    and its content is not in the item (a screenshot, a paragraph after the list), as a
    paragraph's is: "* You must be a human to create an Account. Accounts registered by
    "bots" ... are not permitted. We do permit machine accounts:" says its first two
    sentences; an item that is that one sentence stays whole, and no claim (`admissible`)."""
    said = list(_sentences(text, lo, hi)) if text[lo:hi].endswith(":") else []
    return said[-2][1] if len(said) > 1 else hi


def _fit(text: str, lo: int, block: markdown.Block, max_chars: int) -> int:
    """Where a lead-in unit ends: the whole block, or its leading items/lines up to
    `max_chars` characters (never less than the first item or line)."""
    if block.end - lo <= max_chars:
        return block.end
    pieces = list(_items(text, block)) if block.kind == "list" else []
    if not pieces:
        pieces = [
            (block.start + p, block.start + p + len(line.rstrip("\n")))
            for p, line, _ in markdown.lines(text[block.start : block.end])
        ]
    end = pieces[0][1]
    for _, hi in pieces[1:]:
        if hi - lo > max_chars:
            break
        end = hi
    return end


def units(
    chunk: Chunk, max_chars: int = 900, exclude: Sequence[tuple[int, int]] = ()
) -> list[Unit]:
    """The chunk's evidence units in document order (see the module docstring); none
    overlaps a span of `exclude` (document offsets) or a run of `FENCE_FILLER`."""
    text, base = chunk.text, chunk.offsets.start
    fenced = [(lo - base, hi - base) for lo, hi in exclude]
    fenced += [(m.start(), m.end()) for m in _FILLER_RUN.finditer(text)]
    cuts = sorted({x for span in fenced for x in span})
    found: list[Unit] = []
    blocks = markdown.blocks(text, chunk.opens_in_code, chunk.opens_in_list)
    log = in_change_log(chunk.section_id)
    led: set[int] = set()
    taken_to = 0  # a lead-in took text up to here: the start of a sentence it finished
    for i, block in enumerate(blocks):
        if i in led:  # taken by the lead-in before it, with the wrapper tags around it
            continue
        rest = _rest_of(text, block, taken_to)
        if rest is None:
            continue
        # a chunk cut inside a list item opens on that item's rest: the list after it
        # holds the item's siblings, which do not finish its sentence
        runs_on = i > 0 or not chunk.opens_in_list
        made, last = _block_units(text, base, blocks, i, rest, max_chars, cuts, runs_on)
        if last > i and rest.kind == "paragraph":  # the sentence a list interrupted goes on
            made, taken_to = _finish(text, base, rest, blocks[last:], made, max_chars, cuts)
        found += made
        if last > i:
            led.update(range(i + 1, last + 1))
            found += _past_the_cut(text, base, blocks[last], made[-1].end - base)
    if log:  # every unit of a change log is a change entry
        found = [replace(u, changelog=True) for u in found]
    if fenced:
        found = [
            u
            for u in found
            if not any(u.start - base < hi and lo < u.end - base for lo, hi in fenced)
        ]
    return found  # code, tables, headings and directives count only with a lead-in


def _rest_of(text: str, block: markdown.Block, taken_to: int) -> markdown.Block | None:
    """The block, less the text a lead-in before it took (`_finish`: the sentence that
    finished the one a list interrupted); None when nothing of it is left."""
    if block.start >= taken_to:
        return block
    return replace(block, start=taken_to) if text[taken_to : block.end].strip() else None


def _block_units(
    text: str,
    base: int,
    blocks: Sequence[markdown.Block],
    i: int,
    block: markdown.Block,
    max_chars: int,
    cuts: Sequence[int],
    runs_on: bool,
) -> tuple[list[Unit], int]:
    """The units of `block` (the `i`th of `blocks`, or what is left of it), and the index of
    the last block it took with it (`i` when it took none)."""
    if block.kind == "table" or (block.kind == "paragraph" and _pipe_table(text, block)):
        return _rows(text, base, block), i
    j = i + 1  # the block a paragraph leads into, past wrapper tags (`<div class="x">`)
    while j + 1 < len(blocks) and _wrapper(text, blocks[j]):
        j += 1
    nxt = blocks[j] if j < len(blocks) else None
    if block.kind == "list":
        made, took = _list(text, base, block, nxt, max_chars)
    elif block.kind == "paragraph":
        made, took = _paragraph(text, base, block, nxt, max_chars, cuts, runs_on)
    else:
        made, took = _tab(text, base, block, nxt, max_chars)
    return made, (j if took else i)


def _cells(row: str) -> list[str]:
    """The cells of a table row, outer pipes and padding removed; a pipe inside a code span
    (`str | None`) or escaped (`\\|`) is text, not a border."""
    guarded = CODE_SPAN.sub(lambda m: m.group().replace("|", "\0"), row.replace("\\|", "\1"))
    parts = guarded.strip().strip("|").split("|")
    return [c.replace("\0", "|").replace("\1", "\\|").strip() for c in parts if c.strip()]


def _pipe_table(text: str, block: markdown.Block) -> bool:
    """A paragraph that is a table written without outer pipes (GitHub's cookie list,
    "GitHub | `ghcc` | This cookie validates ... | 180 Days"): two lines or more, each with a
    cell border outside code spans, and no sentence running on from one line to the next
    (every line has the same number of cells)."""
    rows = text[block.start : block.end].splitlines()
    counts = {len(_cells(r)) for r in rows if not _DELIMITER_ROW.match(r)}
    return (
        len(rows) >= 2
        and len(counts) == 1
        and min(counts) >= 2
        and all("|" in CODE_SPAN.sub("", r) for r in rows)
    )


def _rows(text: str, base: int, block: markdown.Block) -> list[Unit]:
    """A table's body rows, one unit each, with its header row's cells as their `header`
    (the line right above the delimiter row; a table cut by a chunk may have neither, and
    a row cut by one, no longer a whole line of the table, is no unit)."""
    lines = [
        (block.start + pos, line.rstrip("\n"))
        for pos, line, _ in markdown.lines(text[block.start : block.end])
    ]
    header = ""
    out: list[Unit] = []
    for i, (pos, line) in enumerate(lines):
        if _DELIMITER_ROW.match(line):
            continue
        if i + 1 < len(lines) and _DELIMITER_ROW.match(lines[i + 1][1]):
            header = " | ".join(display(c) for c in _cells(line))
            continue
        lo = pos + len(line) - len(line.lstrip())
        hi = pos + len(line.rstrip())
        whole = not line.lstrip().startswith("|") or line.rstrip().endswith("|")
        if hi > lo and whole and len(_cells(line)) >= 2:
            out.append(replace(_unit(text, base, lo, hi, "row"), header=header))
    return out


def _wrapper(text: str, block: markdown.Block) -> bool:
    """An HTML block that is one bare opening or closing tag (`<div class="termy">`, `</div>`)
    or only comments (`<!-- markdownlint-disable GHD034 -->`), or a container's opening line
    (`::: code-group`): layout or notes around the code or list a sentence introduces, not
    content of its own. A closing line (`:::`, `///`) is no wrapper: a sentence inside a tip
    does not lead into the code after the tip."""
    if block.kind == "directive":  # a container's opening line (`::: code-group`)
        return _CONTAINER_OPENS.match(text[block.start : block.end]) is not None
    if block.kind != "html":
        return False
    html = text[block.start : block.end]
    return _TAG_LINE.fullmatch(html) is not None or not HTML_COMMENT.sub("", html).strip()


# The end of a sentence that runs on into the list after it: a word, a number or a comma,
# not a stop, a closing bracket (an image or link line) nor code ("To count as complete, a
# request must" over "* come from a relevant, official government agency").
_RUNS_ON = re.compile(r"[^\W_]|[,;]\Z")


def _leads_into(sentence: str, nxt: markdown.Block | None, runs_on: bool = True) -> bool:
    """A sentence ending in ":" leads into the list, table or code right after it, and one
    that has not ended runs on into the list after it (its items finish it; when `runs_on`);
    prose right before a code block is taken to introduce the code too."""
    if nxt is None or nxt.kind not in ("list", "code", "table"):
        return False
    end = sentence.rstrip()[-1:]
    unended = runs_on and nxt.kind == "list" and bool(_RUNS_ON.match(end))
    return end == ":" or unended or nxt.kind == "code"


def _paragraph(
    text: str,
    base: int,
    block: markdown.Block,
    nxt: markdown.Block | None,
    max_chars: int,
    cuts: Sequence[int] = (),
    runs_on: bool = True,
) -> tuple[list[Unit], bool]:
    """The paragraph's units, and whether its last sentence took the next block with it
    (`runs_on`: whether a sentence that has not ended may run on into a list, `_leads_into`)."""
    spans = _with_what_they_introduce(
        text, list(_sentences(text, block.start, block.end, cuts)), max_chars
    )
    out = [
        _unit(text, base, lo, hi, "sentence")
        for lo, hi in spans[:-1]
        if not text[lo:hi].rstrip().endswith(":")  # its content is past max_chars or fenced
    ]
    if not spans:
        return out, False
    lo, hi = spans[-1]
    last = text[lo:hi]
    if nxt is not None and _leads_into(last, nxt, runs_on):
        end = _fit(text, lo, nxt, max_chars)
        bare = _bare_code(text, nxt)
        cut = end < nxt.end
        out.append(_unit(text, base, lo, end, "lead_in", prose_end=hi, bare=bare, cut=cut))
        return out, True
    target = None
    if nxt is not None and nxt.kind == "directive":
        target = markdown.include_target(text[nxt.start : nxt.end])
    if target is not None:
        out.append(_unit(text, base, lo, hi, "lead_in", reference=target))
    elif not last.rstrip().endswith(":"):  # a lead-in whose content is not here is no unit
        out.append(_unit(text, base, lo, hi, "sentence"))
    return out, False


# The rest of a sentence a list interrupted: the paragraph after the list opens in lower case
# or with an ellipsis ("Any function that is valid to use with:" over its items, then "would
# be valid to use as a **FastAPI** dependency.").
_GOES_ON = re.compile(r"(?:\.\.\.|…)|[a-z]")


def _finished(
    text: str, lo: int, following: Sequence[markdown.Block], max_chars: int, cuts: Sequence[int]
) -> int | None:
    """Where the sentence that opens at `lo` and leads into a list or code ends, when the
    paragraph after them (`following[0]`) finishes it: the end of that paragraph's first
    sentence, unless it leads into something else (ends in ":", or it is the whole paragraph
    and leads into the block after it, `following[1]`: "or" between two URLs) or the whole
    passes `max_chars`; None otherwise."""
    if not following or following[0].kind != "paragraph":
        return None
    rest, beyond = following[0], (following[1] if len(following) > 1 else None)
    if not _GOES_ON.match(text[rest.start : rest.end].lstrip()):
        return None
    said = list(_sentences(text, rest.start, rest.end, cuts))
    if not said or text[said[0][0] : said[0][1]].rstrip().endswith(":"):
        return None
    if len(said) == 1 and _leads_into(text[said[0][0] : said[0][1]], beyond):
        return None
    return said[0][1] if said[0][1] - lo <= max_chars else None


def _finish(
    text: str,
    base: int,
    block: markdown.Block,
    after: Sequence[markdown.Block],
    made: list[Unit],
    max_chars: int,
    cuts: Sequence[int],
) -> tuple[list[Unit], int]:
    """`made`, the units of `block`, whose last one leads into `after[0]` (a list or code),
    with that lead-in taken on to the end of the sentence the paragraph after it finishes
    (`_finished`), when it took the whole of `after[0]`; and where the taken text ends (0:
    nothing taken past the block)."""
    lo = made[-1].start - base
    if made[-1].end - base != after[0].end:  # cut at max_chars: nothing follows it
        return made, 0
    finished = _finished(text, lo, after[1:3], max_chars, cuts)
    if finished is None:
        return made, 0
    lead_end = block.start + len(text[block.start : block.end].rstrip())
    return [*made[:-1], _unit(text, base, lo, finished, "lead_in", prose_end=lead_end)], finished


def _past_the_cut(text: str, base: int, taken: markdown.Block, cut: int) -> list[Unit]:
    """The items or rows of a list or table a lead-in took, past where the lead-in was cut
    (`_fit`, at `max_chars`), one unit each: they were no units at all, so the eighth of
    twelve subprocessors ("Mailgun. Email service provider.") could not be cited."""
    if taken.kind == "list":
        items = [(lo, hi) for lo, hi in _items(text, taken) if lo >= cut]
        return [_unit(text, base, lo, _said_end(text, lo, hi), "item") for lo, hi in items]
    if taken.kind == "table":
        return [u for u in _rows(text, base, taken) if u.start - base >= cut]
    return []


def _list(
    text: str, base: int, block: markdown.Block, nxt: markdown.Block | None, max_chars: int
) -> tuple[list[Unit], bool]:
    """A list's items, one unit each, and whether its last item took the next block: an item
    right over a code block introduces it, as a paragraph's last sentence does ("*
    `cascade_delete` is put on the `Relationship()`." over `heroes: list[Hero] =
    Relationship(cascade_delete=True)`, SQLModel's docs); the code had no lead-in and was no
    unit."""
    items = list(_items(text, block))
    said = [_unit(text, base, lo, _said_end(text, lo, hi), "item") for lo, hi in items]
    if not items or nxt is None or nxt.kind != "code":
        return said, False
    lo, hi = items[-1]
    lo += _marker_end(text[lo:hi])
    end = _fit(text, lo, nxt, max_chars)
    last = _unit(
        text,
        base,
        lo,
        end,
        "lead_in",
        prose_end=hi,
        bare=_bare_code(text, nxt),
        cut=end < nxt.end,
    )
    return [*said[:-1], last], True


def _tab(
    text: str, base: int, block: markdown.Block, nxt: markdown.Block | None, max_chars: int
) -> tuple[list[Unit], bool]:
    """A content tab's label with the code, list or table right under it (`=== "Zsh"` over
    the zsh command, mkdocs-material): one unit, the label leading it in, shown as "Zsh:";
    and whether it took the next block. Any other block (a heading, a table or code with no
    lead-in) makes no unit."""
    if block.kind != "directive" or nxt is None or nxt.kind not in ("list", "code", "table"):
        return [], False
    if markdown.tab_label(text[block.start : block.end]) is None:
        return [], False
    end = _fit(text, block.start, nxt, max_chars)
    cut = end < nxt.end
    return [_unit(text, base, block.start, end, "lead_in", prose_end=block.end, cut=cut)], True


def _with_what_they_introduce(
    text: str, spans: list[tuple[int, int]], max_chars: int = 900
) -> list[tuple[int, int]]:
    """A sentence ending in ":" inside a paragraph (a quote or a line it introduces follows
    on the next line, as in "Our Standards of Conduct prohibit:" then ">Bribing ...") is
    joined to the sentence after it: one unit, never a claim that stops at the colon."""
    out: list[tuple[int, int]] = []
    for lo, hi in spans:
        if (
            out
            and text[out[-1][0] : out[-1][1]].rstrip().endswith(":")
            and hi - out[-1][0] <= max_chars
            and not text[out[-1][1] : lo].strip()
        ):
            out[-1] = (out[-1][0], hi)
            continue
        out.append((lo, hi))
    return out


def asks_for_pointer(question: str) -> bool:
    """The question asks for a link or a place to read: pointers may answer it."""
    return bool(_ASKS_LINK.search(question))


# A version that is what the asker would pin ("Should I pin the Starlette version in my
# requirements too?"): a practice, which the guide states, not a release the change log names.
_PINS_VERSION = re.compile(r"\bpin(?:s|ned|ning)?\b[^.?!]*?\bversions?\b", re.I)


def asks_for_version(question: str) -> bool:
    """The question asks about a version or a release: change entries may answer it. Pinning
    one asks how, not what changed (FastAPI dev f22 cited three change-log lines after the
    guide's "You shouldn't pin the version of `starlette`.")."""
    return bool(_ASKS_VERSION.search(_PINS_VERSION.sub(" ", question)))


def without_change_logs(question: str, hits: Sequence[Hit]) -> list[Hit]:
    """The hits that are not in a change log, unless the question asks about a version (or
    nothing else is left): release notes mention every feature, so they crowd the evidence
    places of the pages that explain it while none of their entries may answer."""
    if asks_for_version(question):
        return list(hits)
    kept = [h for h in hits if not in_change_log(h.chunk.section_id)]
    return kept or list(hits)


def holds_evidence(chunk: Chunk, question: str, max_chars: int) -> bool:
    """Whether the chunk offers a unit that may be a claim for this question (`admissible`):
    a chunk of API-reference directives (`::: fastapi.UploadFile`) or of an include alone
    offers none."""
    return any(admissible(u, question) for u in units(chunk, max_chars))


def with_evidence(question: str, hits: Sequence[Hit], max_chars: int, enough: int) -> list[Hit]:
    """The hits that hold evidence (`holds_evidence`), unless none does: a chunk with nothing
    to cite would take an evidence place from the next hit, which may hold the answer (FastAPI
    f06: two API-reference chunks ranked 5th and 6th kept out the 9th, "When we create an
    instance of the `OAuth2PasswordBearer` class we pass in the `tokenUrl` parameter"). Read
    in rank order until `enough` are kept; the hits after those follow as they are."""
    kept: list[Hit] = []
    for i, h in enumerate(hits):
        if len(kept) == enough:  # read no further: the rest only backs up the places
            return kept + list(hits[i:])
        if holds_evidence(h.chunk, question, max_chars):
            kept.append(h)
    return kept or list(hits)


def with_direct_answer(
    question: str, hits: Sequence[Hit], places: int, window: int, max_chars: int
) -> list[Hit]:
    """The hits, with one that instructs closely (`instructs_closely`) moved into the last of
    the `places` evidence places when it ranks below them, among the first `window`, and no
    hit in the places does: a how-to question's own task, stated as a purpose clause with its
    instruction, is the answer it asks for (FastAPI f62, "How do I stream Server-Sent Events
    from an endpoint?": "To stream Server-Sent Events (SSE), use `yield` ... and set
    `response_class=EventSourceResponse`" ranked 9th of 8 places)."""

    def close(hit: Hit) -> bool:
        return any(instructs_closely(question, u.display) for u in units(hit.chunk, max_chars))

    if not asks_how_to(question) or len(hits) <= places or any(close(h) for h in hits[:places]):
        return list(hits)
    for i in range(places, min(window, len(hits))):
        if close(hits[i]):
            return [*hits[: places - 1], hits[i], *hits[places - 1 : i], *hits[i + 1 :]]
    return list(hits)


def asks_for_words(question: str) -> bool:
    """The question asks what someone said, thought or meant: asides may answer it."""
    return bool(_ASKS_WORDS.search(question))


def restates(unit: Unit, question: str) -> bool:
    """The unit says what the question says and nothing more: the same content words both
    ways ("Write a script to rename all files ..." asked of a page where that very sentence
    stands). It adds no evidence, so it is never the answer: a request planted in a page and
    asked back word for word would otherwise be cited as its own support."""
    asked, said = set(content_words(question)), set(content_words(unit.display))
    return bool(asked) and asked == said


def admissible(unit: Unit, question: str) -> bool:
    """Whether a unit may be offered as a claim for this question at all. Never a question (it
    asserts nothing) nor a lead-in whose content is not in it; a fragment only when it gives
    the kind of value asked for: "Default: `False`" under a setting's heading answers "What
    is TESTING's default?"."""
    if unit.display.rstrip().endswith(("?", ":")):  # a lead-in without what it leads into
        return False  # ("* in [PyCharm](...):" over a screenshot) says nothing either
    if (unit.fragment and not leads(question, unit.display)) or restates(unit, question):
        return False
    if unit.aside and not asks_for_words(question):
        return False
    if unit.pointer and not asks_for_pointer(question):
        return False
    return not (unit.changelog and not asks_for_version(question))


def unit_input(chunk: Chunk, display: str) -> str:
    """What a unit is embedded as: in a document with sections (a heading path of two levels
    or more), its heading path and its text, so that a sentence under "Pin your `fastapi`
    version" is scored as being about pinning; elsewhere (a one-heading page, a passage) the
    text alone, since a title shared by every unit tells them apart by nothing. Extractive
    harness on the dev halves: citation match FastAPI and site policy +5 items of 128, match
    at 1 +2, ClapNQ unchanged (it has no sections)."""
    if len([p for p in chunk.heading.split(HEADING_SEPARATOR) if p]) < 2:
        return display
    return embed_input(chunk.title, chunk.heading, display)
