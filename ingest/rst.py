"""reStructuredText (Sphinx sources) read as the Markdown text every later stage reads.

docutils parses the file; this module writes its document tree back out as Markdown: a
section title becomes a `#` heading of its depth, a code block a fenced block, an admonition
a `/// note` block, a table a pipe table, a role its text (`:func:`x`` -> `` `x()` ``, `:ref:`Title
<label>`` -> `Title`). Like an HTML page's visible text, that text is what citations point
into (`doc_text[start:end] == quote`); the `.rst` file itself is never cited.

Untrusted input: files are never read (`include`, `literalinclude` and `csv-table :file:`
become references to their target, or nothing) and `raw` is off. Sphinx's directives and
roles are not docutils': the ones documentation uses most are registered here, on the first
call, as plain containers and text; any other unknown directive is dropped, as its error is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, cast

from docutils import nodes
from docutils.parsers.rst import Directive, directives, roles

# What docutils is told for every file: no files or URLs read, no raw HTML, no reports
# printed or raised (a markup error leaves its text as text), no document-title promotion
# (each section keeps its own depth), no syntax highlighting (pygments is not needed).
_SETTINGS: dict[str, Any] = {
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": False,
    "doctitle_xform": False,
    "sectsubtitle_xform": False,
    "syntax_highlight": "none",
    "input_encoding": "unicode",
    "_disable_config": True,
}
_ADMONITIONS = (
    "attention",
    "caution",
    "danger",
    "error",
    "hint",
    "important",
    "note",
    "tip",
    "warning",
)
# Sphinx's version notes, written out as Sphinx shows them: "Changed in version 2.3: ...".
_VERSION_NOTES = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
# Directives whose body is ordinary reStructuredText shown as it is (Sphinx and its common
# extensions: tabs, design cards, `only`, glossaries, object descriptions).
_CONTAINERS = (
    "only",
    "glossary",
    "hlist",
    "centered",
    "tabs",
    "tab",
    "group-tab",
    "tab-set",
    "tab-item",
    "grid",
    "grid-item",
    "grid-item-card",
    "card",
    "dropdown",
    "seealso",
    "productionlist",
)
# Object descriptions (`.. py:function:: name(args)`, `.. data:: DEBUG`): the signature is
# shown as code, then the body.
_OBJECTS = tuple(
    f"{domain}{kind}"
    for domain in ("", "py:", "js:", "c:", "cpp:", "rst:", "std:")
    for kind in (
        "function",
        "class",
        "method",
        "attribute",
        "property",
        "data",
        "exception",
        "decorator",
        "decoratormethod",
        "classmethod",
        "staticmethod",
        "envvar",
        "option",
        "describe",
        "object",
        "directive",
        "role",
        "macro",
        "type",
        "member",
        "var",
        "cmdoption",
        "confval",
        "program",
    )
)
# Directives that only steer the build (or generate text from code that is not here):
# autodoc's become an API-reference line (`::: flask.Flask`), the rest nothing.
_AUTODOC = tuple(
    f"auto{kind}"
    for kind in (
        "module",
        "class",
        "function",
        "method",
        "attribute",
        "data",
        "exception",
        "decorator",
        "property",
        "summary",
    )
)
_SILENT = (
    "toctree",
    "index",
    "highlight",
    "currentmodule",
    "py:currentmodule",
    "module",
    "py:module",
    "default-role",
    "tabularcolumns",
    "sectionauthor",
    "moduleauthor",
    "codeauthor",
    "contents",
    "meta",
    "graphviz",
    "uml",
    "mermaid",
    "plot",
    "jinja",
    "click",
)
_INCLUDES = ("include", "literalinclude")
# Roles shown as code (Python objects and the like get "()" after a function, as Sphinx adds).
_CODE_ROLES = (
    "func",
    "meth",
    "class",
    "attr",
    "exc",
    "data",
    "obj",
    "mod",
    "const",
    "envvar",
    "option",
    "command",
    "program",
    "file",
    "samp",
    "kbd",
    "keyword",
    "token",
    "makevar",
    "mimetype",
    "confval",
    "rst:dir",
    "rst:role",
)
_CALLABLE_ROLES = {"func", "meth"}
_OBJECT_ROLES = {"func", "meth", "class", "attr", "exc", "data", "obj", "mod", "const"}
# Roles shown as their title (cross-references, terms, labels, extlinks such as `:issue:`).
_TEXT_ROLES = (
    "ref",
    "doc",
    "term",
    "numref",
    "any",
    "download",
    "dfn",
    "guilabel",
    "menuselection",
    "abbr",
    "issue",
    "pr",
    "user",
    "gh",
    "ghissue",
    "bpo",
    "cve",
    "cwe",
    "pypi",
    "wiki",
    "sub",
    "sup",
)
_DOMAINS = ("py", "js", "c", "cpp", "std")


class _Block(nodes.Element):
    """A Sphinx directive kept as a container: `name`, `argument` and its parsed body."""


class _AnyOption(dict[str, Callable[[str], Any]]):
    """An option spec that takes every option (`:members:`, `:caption: x`) as plain text."""

    def __missing__(self, key: str) -> Callable[[str], Any]:
        return directives.unchanged


class _Container(Directive):
    """Any directive read as a container of reStructuredText (its options are dropped)."""

    optional_arguments = 20
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOption(name=directives.unchanged)

    def run(self) -> list[nodes.Node]:
        argument = " ".join(self.arguments)
        if self.name in _VERSION_NOTES:  # `.. versionchanged:: 2.0 Text that is markup.`
            argument, _, rest = argument.partition(" ")
            if rest.strip():
                spans, _messages = self.state.inline_text(rest.strip(), self.lineno)
                argument += " " + "".join(_span(n) for n in spans)
        block = _Block(name=self.name, argument=argument)
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, block)
        return [block]


class _Code(Directive):
    """`code-block` / `sourcecode` / `code` with Sphinx's options (`:caption:`, `:linenos:`):
    a literal block; a caption becomes the line that leads into it."""

    optional_arguments = 1
    has_content = True
    option_spec = _AnyOption(caption=directives.unchanged)

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        block = nodes.literal_block(code, code)
        if self.arguments:
            block["language"] = self.arguments[0]
        caption = str(self.options.get("caption") or "").strip()
        if not caption:
            return [block]
        spans, _messages = self.state.inline_text(caption, self.lineno)
        lead = nodes.paragraph(caption, "", *spans)
        if not caption.endswith((":", ".", "?", "!")):
            lead += nodes.Text(":")
        return [lead, block]


def _role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: Any = None,
    content: Sequence[str] = (),
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """A Sphinx role as its visible text: `Title <target>` -> Title, `~a.b.c` -> c."""
    base = name.rsplit(":", maxsplit=1)[-1]
    title = nodes.unescape(text).strip()
    if title.endswith(">") and "<" in title:
        head = title[: title.rindex("<")].strip()
        title = head or title[title.rindex("<") + 1 : -1]
    title = title.lstrip("!")
    if title.startswith("~"):
        title = title[1:].rsplit(".", 1)[-1]
    if base in _OBJECT_ROLES:  # `.Request`: Sphinx's "look in every module" prefix
        title = title.removeprefix(".")
    elif base not in _CODE_ROLES:  # `:doc:`/cli``: a path from the docs root
        title = title.removeprefix("/")
    if base in _CALLABLE_ROLES and not title.endswith(")"):
        title += "()"
    if base in ("ref", "numref") and title == text.strip():  # a bare label: `_titled` names it
        return [_Label(rawtext, title, label=title)], []
    node = nodes.literal(rawtext, title) if base in _CODE_ROLES else nodes.Text(title)
    return [node], []


class _Label(nodes.inline):
    """A `:ref:` to a label without a title of its own (`:ref:`security-cookie``)."""


def _titled(document: nodes.document) -> None:
    """Each bare label shown as Sphinx shows it: the title of the section it marks, when that
    section is in this file; else its words ("address-already-in-use" -> "address already in
    use"), since the other file's title is not known here."""
    for ref in list(document.findall(_Label)):
        label = str(ref["label"])
        target = document.ids.get(document.nameids.get(nodes.fully_normalize_name(label)) or "")
        title = target.next_node(nodes.title) if isinstance(target, nodes.section) else None
        words = title.astext() if title is not None else re.sub(r"[-_]+", " ", label).strip()
        ref.replace_self(nodes.Text(words or label))


@cache
def _register() -> None:
    """Teach docutils the Sphinx directives and roles (once; docutils keeps one registry)."""
    for name in (*_CONTAINERS, *_VERSION_NOTES, *_OBJECTS, *_AUTODOC, *_SILENT, *_INCLUDES):
        directives.register_directive(name, _Container)
    for name in ("code-block", "sourcecode", "code", "code-tab"):
        directives.register_directive(name, _Code)
    for name in (*_CODE_ROLES, *_TEXT_ROLES):
        for full in (name, *(f"{d}:{name}" for d in _DOMAINS)):
            roles.register_canonical_role(full, cast(Any, _role))


def parse(text: str) -> nodes.document:
    """The docutils document tree of a reStructuredText text (never raises on bad markup)."""
    from docutils.core import publish_doctree

    _register()
    return publish_doctree(text, settings_overrides=dict(_SETTINGS))


def to_markdown(text: str) -> str:
    """The Markdown text of a reStructuredText text (see the module docstring)."""
    document = parse(text)
    _titled(document)
    out = _blocks(document.children, depth=0)
    return "\n\n".join(out).strip("\n") + "\n" if out else ""


# --- block writer: one function per kind of body element ----------------------------------

_NESTED = ("```", "- ", "|", "///", "=== ")  # a block that cannot follow "term:" on its line


def _blocks(children: Sequence[nodes.Node], depth: int) -> list[str]:
    """Markdown blocks (without the blank lines between them) of a run of body elements;
    `depth`: how many sections (and object descriptions) hold them."""
    out: list[str] = []
    for child in children:
        write = next((w for t, w in _WRITERS if isinstance(child, t)), None)
        if write is not None and isinstance(child, nodes.Element):
            out.extend(write(child, depth))
    # comments, targets, substitution definitions, images, transitions, system messages
    # and raw (disabled) have no writer: they are not text a reader sees
    return [b for b in out if b.strip()]


def _indent(blocks: Sequence[str], prefix: str) -> str:
    """Blocks joined by blank lines, every non-empty line but the first indented."""
    lines = "\n\n".join(blocks).split("\n")
    return "\n".join([lines[0], *[prefix + ln if ln.strip() else "" for ln in lines[1:]]])


def _heading(depth: int, text: str) -> str:
    return f"{'#' * min(depth + 1, 6)} {text}"


def _section(node: nodes.Element, depth: int) -> list[str]:
    title = node.next_node(nodes.title)
    body = [child for child in node.children if not isinstance(child, nodes.title)]
    return [_heading(depth, _inline(title)) if title else "", *_blocks(body, depth + 1)]


def _paragraph(node: nodes.Element, depth: int) -> list[str]:
    return [_inline(node)]


def _code_block(node: nodes.Element, depth: int) -> list[str]:
    classes = [str(name) for name in node["classes"] if name != "code"]
    lang = str(node.get("language", "")) or next(iter(classes), "")
    if isinstance(node, nodes.doctest_block):
        lang = "pycon"
    code = node.astext().rstrip()
    ticks = "````" if "```" in code else "```"
    return [f"{ticks}{lang}\n{code}\n{ticks}"]


def _list(node: nodes.Element, depth: int) -> list[str]:
    start = int(node.get("start", 1))
    items = []
    for no, item in enumerate(node.children, start=start):
        marker = f"{no}. " if isinstance(node, nodes.enumerated_list) else "- "
        body = _blocks(item.children, depth)
        items.append(marker + _indent(body, " " * len(marker)) if body else marker.rstrip())
    return ["\n".join(items)]


_TERMS = (nodes.term, nodes.field_name, nodes.classifier)
_DEFINITIONS = (nodes.definition, nodes.field_body, nodes.description)


def _pairs(node: nodes.Element, depth: int) -> list[str]:
    """A definition, field or option list as a list of "term: definition" items."""
    items = []
    for item in node.children:
        if not isinstance(item, nodes.Element):
            continue
        if isinstance(item, nodes.option_list_item):
            term = _code(item.children[0].astext())
        else:
            term = " ".join(_inline(p) for p in item.children if isinstance(p, _TERMS))
        body = next(
            (_blocks(p.children, depth) for p in item.children if isinstance(p, _DEFINITIONS)),
            [],
        )
        head = f"- {term}:" if term else "-"
        if body and not body[0].startswith(_NESTED):
            head, body = f"{head} {body[0]}", body[1:]
        items.append(_indent([head, *body], "  "))
    return ["\n".join(items)]


def _cell(entry: nodes.Node) -> str:
    parts = [
        _inline(p) if isinstance(p, nodes.paragraph) else p.astext()
        for p in (entry.children if isinstance(entry, nodes.Element) else [])
    ]
    return " ".join(" ".join(parts).split()).replace("|", "\\|")


def _table(node: nodes.Element, depth: int) -> list[str]:
    """A pipe table; a two-column table without a header is a list of "term: text" items."""
    header = sum(len(list(h.findall(nodes.row))) for h in node.findall(nodes.thead))
    rows = [[_cell(e) for e in row.children] for row in node.findall(nodes.row)]
    if not rows:
        return []
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    if not header and width == 2:
        return ["\n".join(f"- {a}: {b}" if a and b else f"- {a or b}" for a, b in rows)]
    head, body = (rows[0], rows[1:]) if header else ([""] * width, rows)
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * width]
    return ["\n".join(lines + ["| " + " | ".join(r) + " |" for r in body])]


def _admonition(node: nodes.Element, depth: int) -> list[str]:
    """An admonition as a FastAPI-style block: `/// note | Title`, its body, `///`."""
    title = node.next_node(nodes.title) if isinstance(node, nodes.admonition) else None
    name = next((n for n in _ADMONITIONS if isinstance(node, getattr(nodes, n))), "note")
    return _fenced_note(node, depth, name + (f" | {_inline(title)}" if title is not None else ""))


def _fenced_note(node: nodes.Element, depth: int, head: str) -> list[str]:
    head = f"/// {head}"
    body = _blocks([c for c in node.children if not isinstance(c, nodes.title)], depth)
    return ["\n\n".join([head, *body, "///"])]


def _line_block(node: nodes.Element, depth: int) -> list[str]:
    return ["\n".join(_inline(line) for line in node.findall(nodes.line))]


def _figure(node: nodes.Element, depth: int) -> list[str]:
    return [_inline(node.next_node(nodes.caption))]


def _note(node: nodes.Element, depth: int) -> list[str]:
    """A footnote or citation: `[label] text`."""
    label = node.next_node(nodes.label)
    body = _blocks([c for c in node.children if not isinstance(c, nodes.label)], depth)
    return [f"[{label.astext() if label else ''}] " + _indent(body, "    ")] if body else []


def _children(node: nodes.Element, depth: int) -> list[str]:
    """A block quote, container, compound or topic: its body (a page's contents: nothing)."""
    if isinstance(node, nodes.topic) and "contents" in node.get("classes", []):
        return []
    return _blocks(node.children, depth)


def _attribution(node: nodes.Element, depth: int) -> list[str]:
    return ["— " + _inline(node)]


def _object(node: nodes.Element, depth: int) -> list[str]:
    """An object description: its signature as a sub-heading (Sphinx lists it in the page's
    contents), then its body one level down."""
    argument = str(node["argument"]).strip()
    head = [_heading(depth, _code(argument))] if argument else []
    return head + _blocks(node.children, depth + 1)


def _version(node: nodes.Element, depth: int) -> list[str]:
    """`.. versionchanged:: 2.0` and its text: "Changed in version 2.0: text"."""
    version, _, rest = str(node["argument"]).strip().partition(" ")
    body = _blocks(node.children, depth)
    lead = f"{_VERSION_NOTES[str(node['name'])]} {version}"
    if rest.strip():
        return [f"{lead}: {rest.strip()}", *body]
    if body and not body[0].startswith(_NESTED):
        return [f"{lead}: {body[0]}", *body[1:]]
    return [lead + ("" if body else "."), *body]


def _seealso(node: nodes.Element, depth: int) -> list[str]:
    if node.children:
        return _fenced_note(node, depth, "note | See also")
    return [f"See also: {str(node['argument']).strip()}"]


def _reference(node: nodes.Element, depth: int) -> list[str]:
    """autodoc (`::: flask.Flask`, an API reference) and includes (`--8<-- "file"`): the
    target is shown as a reference, never read."""
    argument = str(node["argument"]).strip()
    if not argument:
        return []
    return [f"::: {argument}" if str(node["name"]) in _AUTODOC else f'--8<-- "{argument}"']


def _tab(node: nodes.Element, depth: int) -> list[str]:
    """A content tab, written as mkdocs-material writes one: its label, its body indented."""
    label = str(node["argument"]).strip().replace('"', "'")
    body = _blocks(node.children, depth)
    if not label or not body:
        return body
    return [f'=== "{label}"\n\n    ' + _indent(body, "    ")]


def _labelled(node: nodes.Element, depth: int) -> list[str]:
    """A card, dropdown or centred line: its title, leading into its body."""
    label = str(node["argument"]).strip()
    body = _blocks(node.children, depth)
    return ([f"{label}:" if body else label] if label else []) + body


def _silent(node: nodes.Element, depth: int) -> list[str]:
    return []


def _body(node: nodes.Element, depth: int) -> list[str]:
    return _blocks(node.children, depth)


_SPHINX: tuple[tuple[Sequence[str], Callable[[nodes.Element, int], list[str]]], ...] = (
    (_OBJECTS, _object),
    (tuple(_VERSION_NOTES), _version),
    (("seealso",), _seealso),
    ((*_AUTODOC, *_INCLUDES), _reference),
    (("tab", "group-tab", "tab-item"), _tab),
    (("card", "grid-item-card", "dropdown", "centered", "productionlist"), _labelled),
    (_SILENT, _silent),
)


def _sphinx(node: nodes.Element, depth: int) -> list[str]:
    """A Sphinx directive kept by `_Container`, written as Sphinx shows it (any other: its
    body)."""
    name = str(node["name"])
    write = next((w for names, w in _SPHINX if name in names), _body)
    return write(node, depth)


_WRITERS: tuple[tuple[type[object], Callable[[nodes.Element, int], list[str]]], ...] = (
    (nodes.section, _section),
    (nodes.paragraph, _paragraph),
    (nodes.rubric, _paragraph),
    (nodes.title, _paragraph),
    (nodes.literal_block, _code_block),
    (nodes.doctest_block, _code_block),
    (nodes.bullet_list, _list),
    (nodes.enumerated_list, _list),
    (nodes.definition_list, _pairs),
    (nodes.field_list, _pairs),
    (nodes.option_list, _pairs),
    (nodes.table, _table),
    (nodes.Admonition, _admonition),
    (_Block, _sphinx),
    (nodes.line_block, _line_block),
    (nodes.figure, _figure),
    (nodes.footnote, _note),
    (nodes.citation, _note),
    (nodes.block_quote, _children),
    (nodes.container, _children),
    (nodes.compound, _children),
    (nodes.topic, _children),
    (nodes.attribution, _attribution),
)


# --- inline writer ------------------------------------------------------------------------


def _inline(node: nodes.Node | None) -> str:
    """The text of a paragraph-like node with Markdown inline markup, on one line."""
    if not isinstance(node, nodes.Element):
        return ""
    return " ".join("".join(_span(c) for c in node.children).split())


def _code(text: str) -> str:
    """Inline code: `x`, or ``` `` a`b `` ``` when the text holds a backtick."""
    text = " ".join(text.split())
    if not text:
        return ""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _span(node: nodes.Node) -> str:
    if isinstance(node, nodes.Text):
        return node.astext()  # backslash escapes removed
    if isinstance(node, nodes.literal | nodes.title_reference):
        return _code(node.astext())
    if not isinstance(node, nodes.Element) or isinstance(node, _NO_TEXT):
        return ""
    if isinstance(node, nodes.problematic):  # an unknown role (`:issue:`123``): its text
        return _UNKNOWN_ROLE.sub(r"\1", node.astext())
    inner = "".join(_span(c) for c in node.children)
    mark = (
        "**" if isinstance(node, nodes.strong) else "*" if isinstance(node, nodes.emphasis) else ""
    )
    if mark or not inner.strip():
        return f"{mark}{inner}{mark}" if inner.strip() else inner
    uri = str(node.get("refuri", "")) if isinstance(node, nodes.reference) else ""
    return f"[{inner}]({uri})" if "://" in uri and inner != uri else inner


_UNKNOWN_ROLE = re.compile(r"^:[\w:+.-]+:`(.*)`$", re.DOTALL)
_NO_TEXT = (
    nodes.footnote_reference,
    nodes.citation_reference,
    nodes.image,
    nodes.system_message,
)
