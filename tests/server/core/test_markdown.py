"""The one set of Markdown rules: headings, sections and blocks, with hand-worked offsets."""

from __future__ import annotations

import pytest

from server.core import markdown

DOC = (
    "---\ntitle: T\n---\n"  # 4 + 9 + 4 characters: 0..17
    "# Top {#top}\n"  # 17..30
    "Intro line.\n"  # 30..42
    "```python\n# not a heading\n```\n"  # 10 + 16 + 4: 42..72
    "## Sub ##\n"  # 72..82
    "Body.\n"  # 82..88
)


def _kinds(text: str) -> list[tuple[str, str]]:
    """Each block of `text` as (kind, its text)."""
    return [(b.kind, text[b.start : b.end]) for b in markdown.blocks(text)]


def test_headings_skip_front_matter_and_code_fences() -> None:
    found = markdown.headings(DOC)
    assert [(h.start, h.level, h.text, h.anchor) for h in found] == [
        (17, 1, "Top", "top"),
        (72, 2, "Sub", None),
    ]


SETEXT_DOC = (
    "Terms\n"  # 0..5: the title line of a level-1 setext heading
    "=====\n"  # 6..11
    "\n"  # 12
    "Intro text.\n"  # 13..24: a paragraph of two lines, then a line of dashes
    "more text\n"  # 25..34
    "----\n"  # 35..39: under two lines, it stays part of that paragraph
    "\n"  # 40
    "Fees { #fees }\n"  # 41..55: a level-2 setext heading with an explicit anchor
    "---\n"  # 56..59
    "\n"  # 60
    "```\nCode\n====\n```\n"  # 4+5+5+4 = 18: 61..78, an underline inside a fence is code
    "- item\n"  # 79..85
    "---\n"  # 86..89: under a list item, no heading
)


def test_setext_headings_are_headings_of_one_line_paragraphs() -> None:
    found = markdown.headings(SETEXT_DOC)
    assert [(h.start, h.level, h.text, h.anchor) for h in found] == [
        (0, 1, "Terms", None),
        (41, 2, "Fees", "fees"),
    ]
    assert markdown.heading_path(SETEXT_DOC, 70) == ("Terms", "Fees")
    kinds = [(b.kind, b.start, b.end) for b in markdown.blocks(SETEXT_DOC)]
    assert kinds == [
        ("heading", 0, 11),
        ("paragraph", 13, 39),
        ("heading", 41, 59),
        ("code", 61, 78),
        ("list", 79, 85),
        ("paragraph", 86, 89),
    ]


def test_a_heading_title_drops_html_tags_and_reads_entities() -> None:
    # GitBook writes an anchor into the heading line and `&#x20;` for a trailing space
    text = '# Fees\n\n## Who pays these fees? <a href="#who" id="who"></a>\n\nThe host.\n'
    text += "## Q&amp;A&#x20;\n\n## <br>\n"
    assert [h.text for h in markdown.headings(text)] == [
        "Fees",
        "Who pays these fees?",
        "Q&A",
        "<br>",  # nothing left: the title as written
    ]


def test_indented_code_is_a_block_outside_lists_directives_and_paragraphs() -> None:
    text = (
        "Example:\n\n    x = 1\n\n    y = 2\n\nProse.\n\n"  # code across a blank line
        "!!! note\n    Body.\n\n"  # a directive's body
        "- item\n\n    more of the item\n\n"  # a list item's
        "Para\n    lazy line\n\n"  # a paragraph's continuation
        "\tz = 3\n"  # a tab is four columns
    )
    assert _kinds(text) == [
        ("paragraph", "Example:"),
        ("code", "    x = 1\n\n    y = 2"),
        ("paragraph", "Prose."),
        ("directive", "!!! note"),
        ("paragraph", "    Body."),
        ("list", "- item\n\n    more of the item"),
        ("paragraph", "Para\n    lazy line"),
        ("code", "\tz = 3"),
    ]


def test_a_fragment_that_starts_indented_is_not_code_and_a_directive_ends_a_list() -> None:
    # a chunk cut inside a tab of Pydantic's docs: notes to code, then an admonition one
    # level out (it was read as part of the last note, with everything after it)
    text = (
        "        1. `'after'` is the default mode.\n"
        "        2. Return the validated value.\n"
        "\n"
        '    ??? example "Mutating the value"\n'
        "        Here is an example.\n"
    )
    kinds = [(b.kind, text[b.start : b.end].strip()) for b in markdown.blocks(text)]
    expected = [
        ("list", "1. `'after'` is the default mode.\n        2. Return the validated value."),
        ("directive", '??? example "Mutating the value"'),
        ("paragraph", "Here is an example."),
    ]
    assert kinds == expected
    # a chunk starts where its text does: its first line has lost its indentation
    trimmed = text.lstrip()
    assert [(b.kind, trimmed[b.start : b.end].strip()) for b in markdown.blocks(trimmed)] == (
        expected
    )


def test_a_lazy_line_at_the_margin_keeps_the_list_open_for_its_indented_body() -> None:
    # Pydantic's validators page: an item's `{#anchor}` line, then its tab one level in
    text = (
        "Intro.\n\n"
        "* After validators: run after validation.\n"
        "{#field-after-validator}\n"
        "\n"
        '    === "Annotated pattern"\n'
        "\n"
        "        Here is an example.\n"
    )
    kinds = [b.kind for b in markdown.blocks(text)]
    assert "code" not in kinds


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a container's closing line ends the paragraph inside
        (
            "::: tip\nNode 20 or later.\n:::\n/// note\nA note.\n///\n",
            [
                ("directive", "::: tip"),
                ("paragraph", "Node 20 or later."),
                ("directive", ":::"),
                ("directive", "/// note"),
                ("paragraph", "A note."),
                ("directive", "///"),
            ],
        ),
        # template tag lines are layout blocks, as HTML lines are
        (
            '{{% note %}}\nPoetry updates itself.\n{{% /note %}}\n\n{% hint style="info" %}\n',
            [
                ("html", "{{% note %}}"),
                ("paragraph", "Poetry updates itself."),
                ("html", "{{% /note %}}"),
                ("html", '{% hint style="info" %}'),
            ],
        ),
    ],
)
def test_container_and_template_lines_are_blocks_of_their_own(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert _kinds(text) == expected


def test_section_bounds_run_from_heading_to_next_heading() -> None:
    assert len(DOC) == 88
    assert markdown.section_bounds(DOC, 50) == (17, 72)  # inside the fence, under "Top"
    assert markdown.section_bounds(DOC, 85) == (72, 88)
    assert markdown.section_bounds(DOC, 5) == (0, 17)


def test_blocks_keep_a_list_with_its_items_and_a_fence_whole() -> None:
    text = (
        "Use it like this:\n"  # 0..17 paragraph (17 characters and a newline)
        "\n"  # 18
        "- one\n"  # 19..24
        "- two\n"  # 25..30
        "  more of two\n"  # 31..44
        "\n"  # 45
        "```\nx = 1\n\ny = 2\n```\n"  # 3+1+5+1+1+5+1+3 = 20: 46..66 (a blank line inside)
        "| a | b |\n"  # 67..76
        "{* ../docs_src/app.py hl[3] *}\n"  # 30 characters: 77..107
    )
    got = [(b.kind, b.start, b.end) for b in markdown.blocks(text)]
    assert got == [
        ("paragraph", 0, 17),
        ("list", 19, 44),
        ("code", 46, 66),
        ("table", 67, 76),
        ("directive", 77, 107),
    ]
    assert text[46:66] == "```\nx = 1\n\ny = 2\n```"
    assert markdown.include_target(text[77:107]) == "../docs_src/app.py"


def test_a_content_tab_label_is_a_directive_not_prose() -> None:
    # mkdocs-material content tabs: the label line is markup, its body is indented under it
    text = '=== "macOS and Linux"\n\n    ```\n    curl x | sh\n    ```\n===! "Windows"\n'
    got = [(b.kind, b.start, b.end) for b in markdown.blocks(text)]
    assert got == [("directive", 0, 21), ("code", 23, 54), ("directive", 55, 69)]
    assert markdown.blocks("=== not a tab label\n")[0].kind == "paragraph"


def test_an_api_reference_takes_its_indented_options_and_an_admonition_keeps_its_prose() -> None:
    # mkdocstrings (HTTPX's api.md): the options under `::: httpx.Client` were read as the
    # paragraph ":docstring: :members: headers cookies ..." and shown as a claim
    ref = "::: httpx.Client\n    :docstring:\n    :members: headers cookies\n"
    assert _kinds(ref + "\nThe client.\n") == [
        ("directive", ref.rstrip("\n")),
        ("paragraph", "The client."),
    ]
    yaml = "::: fastapi.UploadFile\n    options:\n        members:\n            - file\n"
    assert _kinds(yaml) == [("directive", yaml.rstrip("\n"))]
    # an admonition's body and a one-word container's content are prose
    note = "!!! note\n    Only use these functions in a console.\n"
    assert _kinds(note) == [
        ("directive", "!!! note"),
        ("paragraph", "    Only use these functions in a console."),
    ]
    tip = "::: tip\n    Indented tip text.\n:::\n"
    assert [k for k, _ in _kinds(tip)] == ["directive", "paragraph", "directive"]
    # a line at the directive's own indentation is no option of it
    assert _kinds("::: httpx.get\nNext line.\n")[1] == ("paragraph", "Next line.")


def test_a_tag_whose_attributes_run_over_lines_is_one_html_block() -> None:
    # MDX (SWR's docs): the caption of a <Video> was read as a sentence of prose
    text = (
        "Refetch on focus.\n"  # 0..17
        "\n"
        "  <Video\n"  # 19..27
        '    src="x.mp4"\n'  # 28..43
        '    caption="Video: two sessions."\n'  # 4 + 30 = 34: 44..78
        "  />\n"  # 79..83
        "<= 5 items is a comparison, not a tag.\n"  # 38: 84..122
    )
    got = [(b.kind, b.start, b.end) for b in markdown.blocks(text)]
    assert got == [("paragraph", 0, 17), ("html", 19, 83), ("paragraph", 84, 122)]
    # a tag never closed ends at the blank line: the prose after it stays prose
    unclosed = "<Video\n  src=x\n\nThe text after it.\n"
    assert [b.kind for b in markdown.blocks(unclosed)] == ["html", "paragraph"]


def test_a_snippet_include_is_a_directive_naming_its_file() -> None:
    line = '--8<-- "docs/reference/.preview-features.md"'
    assert [b.kind for b in markdown.blocks(line + "\n")] == ["directive"]
    assert markdown.include_target(line) == "docs/reference/.preview-features.md"
    assert markdown.include_target("{* ../docs_src/app.py hl[3] *}") == "../docs_src/app.py"
    assert markdown.include_target('Write --8<-- "x" to include x.') is None  # prose about it


def test_a_heading_anchor_may_be_an_attribute_list() -> None:
    # Python-Markdown's attr_list, as mkdocs and kramdown write it: `{: #id .class }`.
    for line, text, anchor in [
        ("## The Pocket Service {: #service }", "The Pocket Service", "service"),
        ("### Fees {: #fees .wide }", "Fees", "fees"),
        ("## Fees { #fees }", "Fees", "fees"),
        ("## Fees {: .wide }", "Fees {: .wide }", None),  # no id: left as written
    ]:
        (found,) = markdown.headings(line + "\n")
        assert (found.text, found.anchor) == (text, anchor)
        hashes = line.split(" ", 1)[0]
        assert markdown.ANCHOR.sub("", line).rstrip() == (f"{hashes} {text}" if anchor else line)


def test_slugify() -> None:
    assert markdown.slugify("Use CORSMiddleware!") == "use-corsmiddleware"
    assert markdown.slugify("???") == "section"


def test_heading_path_is_the_outline_above_a_position() -> None:
    text = (
        "# Security\n\nIntro.\n\n## OAuth2 { #oauth }\n\nFlows.\n\n### Scopes\n\nS.\n\n"
        "## API keys\n\nK.\n\n```md\n# not a heading\n```\n"
    )
    assert markdown.heading_path(text, 0) == ("Security",)
    assert markdown.heading_path(text, text.index("Flows")) == (
        "Security",
        "OAuth2",
    )  # anchor dropped
    assert markdown.heading_path(text, text.index("S.")) == ("Security", "OAuth2", "Scopes")
    # a same-level heading replaces its sibling and closes the deeper one
    assert markdown.heading_path(text, text.index("K.")) == ("Security", "API keys")
    assert markdown.heading_path(text, text.index("# not")) == (
        "Security",
        "API keys",
    )  # code is no heading
    assert markdown.heading_path("No headings here.", 5) == ()


def test_code_spans_run_from_opening_fence_to_closing_fence() -> None:
    text = "Run:\n\n```console\n$ app --help\n```\n\nThen:\n\n```\nleft open\n"
    # 6..16 "```console", 17..29 "$ app --help", 30..33 "```"; the second opens at 42
    assert markdown.code_spans(text) == [(6, 33), (42, len(text))]
    assert markdown.code_spans("---\ntitle: a\n---\n```\nx\n```\n") == [(17, 22 + 4)]


def test_a_fragment_that_starts_inside_code_reads_it_as_code_to_the_closing_fence() -> None:
    # the tail of a long console block: without the state, "--help ..." read as prose and
    # the closing fence opened a block that swallowed the tip after it
    text = "--help  Show this message and exit.\n```\n\nKeep it short.\n"
    assert [(b.kind, b.start, b.end) for b in markdown.blocks(text, in_code=True)] == [
        ("code", 0, 39),
        ("paragraph", 41, 55),
    ]
    assert [b.kind for b in markdown.blocks(text)] == ["paragraph", "code"]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Run:\n```py\nx = 1", "Run:\n```py\nx = 1\n```"),  # cut inside the code
        ("Run:\n````md\n```py\nx = 1\n```\n", "Run:\n````md\n```py\nx = 1\n```\n````"),
        ("Run:\n  ~~~\n  x = 1\n", "Run:\n  ~~~\n  x = 1\n  ~~~"),  # its own run and indent
        ("Run:\n```py\nx = 1\n```", "Run:\n```py\nx = 1\n```"),  # closed: as it was
        ("No code at all.", "No code at all."),
    ],
)
def test_closed_adds_the_fence_a_cut_code_block_lacks(text: str, shown: str) -> None:
    assert markdown.closed(text) == shown
