"""Evidence units on hand-built Markdown: offsets and kinds worked out by hand."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from server.core.contracts import Chunk, Hit, Offsets
from server.query.evidence import (
    admissible,
    asks_for_version,
    display_block,
    holds_evidence,
    in_change_log,
    is_aside,
    is_changelog,
    is_pointer,
    sentence_parts,
    unit_input,
    units,
    with_direct_answer,
    with_evidence,
)

DOC = (
    "# Upload\n"  # 0..9
    "\n"
    "Using `UploadFile` has several advantages over `bytes`:\n"  # 10..65
    "\n"
    "* It uses a spooled file.\n"  # 67..92
    "* You can get metadata from the upload.\n"  # 93..132
    "\n"
    "Install the package with:\n"  # 134..159
    "\n"
    "```console\n$ pip install multipart\n```\n"  # 10 + 1 + 23 + 1 + 3 = 38: 161..199
    "\n"
    "Import `File` from `fastapi`:\n"  # 29: 201..230
    "\n"
    "{* ../../docs_src/request_files/tutorial001.py hl[3] *}\n"
    "\n"
    "The following settings are supported:\n"  # a lead-in whose list is not in the chunk
)


def _chunk(start: int, end: int) -> Chunk:
    return Chunk(
        doc_id="upload.md",
        section_id="upload/upload",
        snippet_id="u-1",
        source_url="upload.md",
        offsets=Offsets(start=start, end=end),
        tokens=60,
        index_hash="ih",
        embed_model="m",
        analyzer="a",
        rev="r1",
        text=DOC[start:end],
        title="Upload",
        tags=(),
        updated_at=datetime(2026, 1, 1, tzinfo=UTC),
        content_hash="c",
    )


def _whole(text: str) -> Chunk:
    """A chunk that is the whole of `text` (offsets from 0)."""
    return _chunk(0, 1).model_copy(
        update={"text": text, "offsets": Offsets(start=0, end=len(text))}
    )


def test_a_lead_in_is_cited_with_what_it_introduces() -> None:
    found = units(_chunk(0, len(DOC)))
    assert [(u.kind, u.start, u.end) for u in found] == [
        ("lead_in", 10, 132),
        ("lead_in", 134, 199),
        ("lead_in", 201, 230),
    ]
    for u in found:
        assert DOC[u.start : u.end] == u.quote
    lead, code, include = found
    assert lead.display == (
        "Using `UploadFile` has several advantages over `bytes`:\n"
        "* It uses a spooled file.\n* You can get metadata from the upload."
    )
    assert code.quote.endswith("$ pip install multipart\n```")
    assert include.reference == "../../docs_src/request_files/tutorial001.py"
    assert include.display == "Import `File` from `fastapi`."  # never a claim ending in ":"
    assert not any(u.display.rstrip().endswith(":") for u in found)


def test_offsets_are_document_offsets_when_the_chunk_starts_later() -> None:
    found = units(_chunk(67, 132))  # the list alone: two items, no lead-in in this chunk
    assert [(u.kind, u.start, u.end, u.display) for u in found] == [
        ("item", 67, 92, "It uses a spooled file."),
        ("item", 93, 132, "You can get metadata from the upload."),
    ]


def test_a_chunk_that_starts_inside_code_cites_the_prose_after_the_code() -> None:
    """The tail of a console block split across chunks (Typer's docs): read as prose, its
    "--help  Show this message and exit." led the tip after it into a block the closing fence
    opened, and the tip itself was no unit."""
    text = (
        "Options:\n"
        "  --help  Show this message and exit.\n"
        "```\n"
        "\n"
        "Typer receives several other parameters for other things.\n"
    )
    tail = _whole(text).model_copy(update={"opens_in_code": True})
    assert [(u.kind, u.quote) for u in units(tail)] == [
        ("sentence", "Typer receives several other parameters for other things.")
    ]
    assert [u.kind for u in units(_whole(text))] == ["lead_in"]  # as it was read before


def test_a_long_list_is_cut_at_an_item_boundary() -> None:
    found = units(_chunk(0, len(DOC)), max_chars=90)
    assert (found[0].start, found[0].end) == (10, 92)  # lead-in and the first item only


def test_pointers_and_change_entries_are_told_by_general_features() -> None:
    assert is_pointer("Read more about it in the [FastAPI docs for Testing](https://x.org/t).")
    assert is_pointer("See the [Advanced User Guide](advanced/index.md).")
    assert is_pointer("[Starlette's docs](https://www.starlette.io/)")
    assert is_pointer("And then you also read how to handle [CORS](../tutorial/cors.md).")
    assert is_pointer("For more details, see the [security section](security/index.md).")
    assert is_pointer("You will also learn about it in the next chapter of the guide.")
    # the lead-in may say what there is more of, up to its comma (httpx's docs)
    assert is_pointer("For more information on using proxies in HTTPX, see [HTTP Proxying](p.md).")
    assert not is_pointer("For more information on proxies, the client reads HTTP_PROXY.")
    # ... or a purpose or condition (FastAPI's Swagger UI page)
    assert is_pointer(
        "To see all the other possible configurations you can use, read the [docs](u)."
    )
    assert is_pointer("If you want to learn more, see the [security section](security/index.md).")
    # FastAPI dev f66: "head to" and "consult" send the reader elsewhere as "go to" does
    mdn = (
        "If you want to read more about these encodings, head to the [MDN web docs](https://m.d/p)."
    )
    assert is_pointer(mdn)
    assert is_pointer("Consult the [Stripe documentation](https://stripe.com/docs) for details.")
    assert not is_pointer("Head to the kitchen and consult a recipe.")  # no link, no docs
    assert not is_pointer("To see the docs, open http://127.0.0.1:8000/docs in your browser.")
    assert not is_pointer("First install [`python-multipart`](https://github.com/k/pm).")
    assert not is_pointer("You can check the `request.url` attribute of the request object.")
    assert not is_pointer("The browser sends a preflight request to check the origin.")
    # a polite opening, and a web address written out (an autolink or a bare URL)
    assert is_pointer("Please visit <https://docs.example.com/subprocessors> to see our list.")
    assert is_pointer("See https://example.com/terms for the full terms.")
    assert not is_pointer("Please send the signed form to legal@example.com.")
    assert not is_pointer("Please read the terms carefully before you accept them.")
    # an offer of more to read elsewhere
    assert is_pointer("We provide more information about [cookies on GitHub](/policy/cookies).")
    assert is_pointer("More information is available in the [docs](https://x.org/d).")
    assert not is_pointer("More information about cookies helps users decide.")
    assert not is_pointer("We provide more storage to paid plans, see the table below.")
    assert is_changelog("📝 Update docs for CORS. PR [#1234](https://github.com/a/b/pull/1234).")
    assert is_changelog("Fix header parsing. PR #16196 by @someone.")
    assert not is_changelog("The default port is 8000.")


def test_a_tab_label_leads_its_list_and_an_indented_list_splits_into_its_items() -> None:
    """uv's storage reference: the cache folders of each platform are a list under a tab
    label. Indented as a whole, the list had no item at the margin and was one item."""
    text = (
        '=== "Unix"\n'  # 0..10
        "\n"
        "    1. `$XDG_CACHE_HOME/uv`\n"  # 4 + 3 + 20 = 27: 12..39
        "    1. `$HOME/.cache/uv`\n"  # 4 + 3 + 17 = 24: 40..64
        "\n"
        "!!! note\n"  # 66..74
        "\n"
        "    - First thing here.\n"  # 4 + 2 + 17 = 23: 76..99, the item from its marker at 80
        "    - Second thing here.\n"  # 100..124, the item from 104
    )
    unix, first, second = units(_whole(text))
    assert (unix.kind, unix.start, unix.end) == ("lead_in", 0, 64)
    assert unix.display == "Unix:\n1. `$XDG_CACHE_HOME/uv`\n1. `$HOME/.cache/uv`"
    assert [(u.kind, u.start, u.end, u.display) for u in (first, second)] == [
        ("item", 80, 99, "First thing here."),
        ("item", 104, 124, "Second thing here."),
    ]


def test_a_lead_in_over_a_list_of_links_is_a_table_of_contents() -> None:
    """uv's docs: "To help you get started, we'll cover a few important topics:" over four
    links led the answer to "How do I get more detailed logs ...?"."""
    toc = (
        "To help you get started, we'll cover a few important topics:\n"
        "\n"
        "- [Installing uv](./installation.md)\n"
        "- [How to get help](./help.md)\n"
    )
    (unit,) = units(_whole(toc))
    assert unit.kind == "lead_in" and unit.pointer
    told = (
        "uv reads these files:\n"
        "\n"
        "- [`uv.toml`](./config.md), in the project folder\n"  # says where: content
        "- [Settings](./settings.md)\n"
    )
    (unit,) = units(_whole(told))
    assert unit.kind == "lead_in" and not unit.pointer


def test_a_credit_line_says_nothing() -> None:
    text = (
        "Add cron to run the tests once a week. PR [#11011](https://github.com/a/b/pull/11011)"
        " by [@dependabot[bot]](https://github.com/apps/dependabot). Initial PR by @someone."
    )
    chunk = _whole(text)
    change, credit, initial = units(chunk)
    assert not change.fragment
    assert credit.fragment and initial.fragment
    assert not admissible(credit, "When were the tests run by cron? Which version?")


def test_a_fragment_is_offered_only_when_it_gives_the_value_asked_for() -> None:
    (default,) = units(_whole("Default: `False`"))
    assert default.fragment
    assert admissible(default, "What is the default value of TESTING?")
    assert not admissible(default, "What does TESTING do?")


def test_pointers_answer_only_questions_about_links_or_versions() -> None:
    text = "Read more about it in the [docs for Testing](https://x.org/t)."
    chunk = _whole(text)
    (pointer,) = units(chunk)
    assert pointer.pointer
    assert not admissible(pointer, "How do I test my app?")
    assert admissible(pointer, "Where can I read more about testing? Give me the link.")


def test_the_page_speaking_of_itself_is_a_pointer_unless_it_leads_a_list() -> None:
    for said in (
        "This page outlines the basics of running Gunicorn.",
        "This guide describes the information GitHub needs to process a request.",
        "This section of the documentation explains the parts of the framework.",
        "The following chapter will show how to deploy.",
    ):
        (unit,) = units(_whole(said))
        assert unit.pointer, said
    for said in (
        "This page is served from the cache.",  # says what is so about a page
        "Pages that this guide describes are cached.",  # not its subject
        "The server outlines each request in the log.",
    ):
        (unit,) = units(_whole(said))
        assert not unit.pointer, said
    # a lead-in keeps the list it introduces, whatever its sentence says of the page
    lead = "This guide lists what we need:\n\n- your name\n- the URL\n"
    (unit,) = units(_whole(lead))
    assert unit.kind == "lead_in" and not unit.pointer


def test_the_writer_speaking_of_themself_is_an_aside() -> None:
    assert is_aside("Flask with Marshmallow was my favorite backend stack for years.")
    assert is_aside("I created another library on top of AnyIO.")
    assert is_aside("Then I tried many frameworks.")
    assert not is_aside("World War I and the years after it.")  # a numeral
    assert not is_aside("Declare `/users/me` before `/users/{user_id}`.")  # code
    assert not is_aside('The song opens with "my heart will go on".')  # a quotation
    assert not is_aside("My Heart Will Go On topped the charts.")  # a title
    # narration inside a sentence that states something
    assert not is_aside("Run one process per container, but I'll tell you more later.")


def test_an_aside_answers_only_questions_about_what_someone_said_or_recommends() -> None:
    text = "Flask with Marshmallow was my favorite backend stack for years."
    chunk = _whole(text)
    (aside,) = units(chunk)
    assert aside.aside
    assert aside.meta
    assert not admissible(aside, "How do I mount a Flask app?")
    assert admissible(aside, "What was the author's favorite stack before FastAPI?")
    assert admissible(aside, "Which backend stack should I use?")


def test_a_change_log_is_told_by_its_headings() -> None:
    assert in_change_log("release-notes/release-notes/0-95-0/docs")
    assert in_change_log("changes/v2-1-0")
    assert in_change_log("release-notes/release-notes/0-125-0-2025-12-17/docs")
    assert in_change_log("release-notes/release-notes/latest-changes/refactors")
    assert in_change_log("history/changelog")
    assert not in_change_log("tutorial/cors/use-corsmiddleware")
    assert not in_change_log("tutorial/step-2/python-3-10-plus")  # no version heading
    assert not in_change_log("terms/2-program-benefits/2-1-your-benefits")  # numbered clauses
    assert not in_change_log("privacy/overview/changes-to-this-privacy-notice")


def test_a_lead_in_takes_its_code_through_a_wrapper_tag() -> None:
    text = (
        "To generate a secret key use the command:\n"  # 0..42
        "\n"
        '<div class="termy">\n'
        "\n"
        "```console\n$ openssl rand -hex 32\n```\n"
        "\n"
        "</div>\n"
        "\n"
        "Copy the output to the variable `SECRET_KEY`.\n"
    )
    chunk = _whole(text)
    lead, after = units(chunk)
    code_end = text.index("```\n\n</div>") + 3
    assert (lead.kind, lead.start, lead.end) == ("lead_in", 0, code_end)
    assert lead.quote == text[:code_end]  # exact, wrapper tag included
    assert lead.display == (  # shown without the layout tag
        "To generate a secret key use the command:\n```console\n$ openssl rand -hex 32\n```"
    )
    assert after.quote == "Copy the output to the variable `SECRET_KEY`."


def test_container_lines_are_layout_a_lead_in_takes_its_code_through() -> None:
    """VitePress and Docusaurus containers (Vite's docs): the closing `:::` was read as the
    end of the tip's sentence, and an install command inside `::: code-group` had no lead-in,
    so "Install it with:" was no unit and the command none either."""
    text = (
        "::: tip\n"
        "Vite needs Node.js 20 or later.\n"
        ":::\n"
        "\n"
        "Install it with:\n"
        "\n"
        "::: code-group\n"
        "```bash [npm]\nnpm i vite\n```\n"
        ":::\n"
    )
    tip, install = units(_whole(text))
    assert (tip.kind, tip.quote) == ("sentence", "Vite needs Node.js 20 or later.")
    assert install.kind == "lead_in"
    assert install.display == "Install it with:\n```bash [npm]\nnpm i vite\n```"


def test_indented_code_is_code_led_in_and_shown_fenced() -> None:
    """Django REST framework's docs indent their examples (CommonMark 4.4): read as prose,
    the example was one run-on line, and `'__all__'` lost its underscores as emphasis."""
    text = (
        "For example:\n"
        "\n"
        "    class AccountSerializer(serializers.ModelSerializer):\n"
        "        class Meta:\n"
        "            fields = '__all__'\n"
        "\n"
        "You can set the `exclude` attribute.\n"
        "\n"
        "!!! note\n"
        "    An admonition's body is prose.\n"
    )
    lead, after, note = units(_whole(text))
    code_end = text.index("'__all__'") + len("'__all__'")
    assert (lead.kind, lead.start, lead.end) == ("lead_in", 0, code_end)
    assert lead.display == (
        "For example:\n```\nclass AccountSerializer(serializers.ModelSerializer):\n"
        "    class Meta:\n        fields = '__all__'\n```"
    )
    assert (after.kind, after.quote) == ("sentence", "You can set the `exclude` attribute.")
    assert (note.kind, note.display) == ("sentence", "An admonition's body is prose.")


def test_template_tags_are_layout_around_units() -> None:
    """Hugo shortcodes (Poetry's docs): a tag line is no unit and no lead-in, a lead-in takes
    its code through one, and a tag on the line of a sentence is not shown."""
    text = (
        "{{% note %}}\n"
        "Poetry can update itself.\n"
        "{{% /note %}}\n"
        "\n"
        "To update, run:\n"
        "{{< tab >}}\n"
        "```bash\npoetry self update\n```\n"
        "\n"
        "{{% /note %}}\n"
        "```bash\npoetry check\n```\n"
    )
    found = units(_whole(text))
    assert [(u.kind, u.display) for u in found] == [
        ("sentence", "Poetry can update itself."),
        ("lead_in", "To update, run:\n```bash\npoetry self update\n```"),
    ]


def test_a_content_tab_label_leads_its_code_and_indented_code_is_shown_dedented() -> None:
    """mkdocs-material content tabs (uv's docs): the command for each shell sits under a
    label line with nothing else in its tab. The label was prose leading a claim with its
    markup ('=== "Zsh"'); as markup alone the command was no unit at all."""
    text = (
        '=== "Zsh"\n'  # 0..9
        "\n"
        "    ```bash\n"  # 11..22
        "    echo 'eval x' >> ~/.zshrc\n"  # 23..52
        "    ```\n"  # 53..60 (the fence ends at 60)
        "\n"
        '=== "Fish"\n'  # 62..72
        "\n"
        "    Add this line to your config:\n"  # 74..107
        "\n"
        "    ```bash\n"  # 109..120
        "    echo 'y' > f.fish\n"  # 121..142
        "    ```\n"  # 143..150
    )
    zsh, fish = units(_whole(text))
    assert (zsh.kind, zsh.start, zsh.end) == ("lead_in", 0, 60)
    assert zsh.display == "Zsh:\n```bash\necho 'eval x' >> ~/.zshrc\n```"
    assert (fish.kind, fish.start, fish.end) == ("lead_in", 78, 150)
    assert fish.display == "Add this line to your config:\n```bash\necho 'y' > f.fish\n```"
    for u in (zsh, fish):
        assert text[u.start : u.end] == u.quote


def test_a_tag_line_inside_the_code_a_lead_in_shows_is_code() -> None:
    """SWR's docs: "`rel="preload"` is highly recommended:" over an html block whose one line
    is a `<link>` tag was shown with an empty block."""
    text = (
        "For top level requests, `rel=preload` is recommended:\n"
        "\n"
        '<div class="x">\n'
        "\n"
        "```html\n"
        '<link rel="preload" href="/api/data" as="fetch">\n'
        "```\n"
        "\n"
        "</div>\n"
    )
    (lead,) = units(_whole(text))
    assert lead.display == (
        "For top level requests, `rel=preload` is recommended:\n"
        '```html\n<link rel="preload" href="/api/data" as="fetch">\n```'
    )


def test_a_lead_in_takes_its_list_past_a_comment() -> None:
    # github-general-privacy-statement.md: a linter switch between the lead-in and its list
    # cost the sentence its list, and the lead-in (ending in ":") was no unit at all
    text = (
        "GitHub personnel does not access private repository information except for:\n"
        "\n"
        "<!-- markdownlint-disable GHD034 -->\n"
        "\n"
        "* security purposes\n"
        "* to assist the repository owner with a support matter\n"
        "\n"
        "<!-- markdownlint-enable GHD034 -->\n"
        "\n"
        "The owner is told.\n"
    )
    chunk = _whole(text)
    lead, after = units(chunk)
    list_end = text.index("matter") + len("matter")
    assert (lead.kind, lead.start, lead.end) == ("lead_in", 0, list_end)
    assert lead.display == (
        "GitHub personnel does not access private repository information except for:\n"
        "* security purposes\n"
        "* to assist the repository owner with a support matter"
    )
    assert after.quote == "The owner is told."


def test_a_colon_sentence_inside_a_paragraph_keeps_the_line_it_introduces() -> None:
    text = (
        "GitHub's Standards of Conduct prohibit:\n"  # 0..39 (40 with the newline)
        ">Bribing government officials, and taking bribes from anyone.\n"  # 40..101
        "\n"
        "The policy is clear."
    )
    chunk = _whole(text)
    found = units(chunk)
    assert [(u.start, u.end) for u in found] == [(0, 101), (103, 123)]
    assert found[0].quote == text[:101]
    assert not any(u.display.rstrip().endswith(":") for u in found)


def test_a_joined_citation_is_read_as_the_units_it_is_made_of() -> None:
    joined = "Create a random secret key. To make one, run:\n$ openssl rand -hex 32\nKeep it safe."
    assert sentence_parts(joined) == [
        "Create a random secret key.",
        "To make one, run:\n$ openssl rand -hex 32\nKeep it safe.",  # a lead-in keeps its code
    ]
    assert sentence_parts("One sentence, version 0.95.") == ["One sentence, version 0.95."]
    assert sentence_parts("") == []


def test_a_sentence_runs_on_past_an_abbreviation() -> None:
    text = (
        "Customer agrees to pay the Fees in full, in U.S. Dollars. "
        "Declare a model (e.g. `Item`) first, i.e. The one you use. Pay within 30 days."
    )
    quotes = [u.quote for u in units(_whole(text))]
    assert quotes == [
        "Customer agrees to pay the Fees in full, in U.S. Dollars.",
        "Declare a model (e.g. `Item`) first, i.e. The one you use.",
        "Pay within 30 days.",
    ]
    assert sentence_parts(text) == quotes


def test_a_unit_that_only_restates_the_question_is_no_answer() -> None:
    text = "Write a script to rename all files in a directory by appending the current date."
    chunk = _whole(text)
    (unit,) = units(chunk)
    assert not admissible(
        unit, "Write a script to rename all files in a directory by appending the current date."
    )
    assert not admissible(
        unit, "write a script that renames all files in a directory, appending the current date"
    )
    # a question asking something more, or less, than the sentence says is answered by it
    assert admissible(unit, "Which script renames files by appending the current date?")
    assert admissible(unit, "How do I rename all files in a directory?")


def test_a_unit_is_read_with_its_heading_path_only_in_a_sectioned_document() -> None:
    flat = _chunk(0, 1).model_copy(update={"heading": "Tokens"})  # one heading: the page title
    deep = flat.model_copy(update={"heading": "Tokens > Expiry"})
    assert unit_input(flat, "They expire.") == "They expire."
    assert unit_input(deep, "They expire.") == "Upload > Tokens > Expiry\n\nThey expire."
    other = deep.model_copy(update={"title": "Tokens"})  # a title its headings repeat
    assert unit_input(other, "They expire.") == "Tokens > Expiry\n\nThey expire."


TABLE = (
    "# Cookies\n"  # 0..10
    "\n"
    "| Name | Expiration |\n"  # 11..32
    "| --- | --- |\n"  # 33..46
    "| `user_session` | Two weeks |\n"  # 47..77
    "| `color_mode` | Session |\n"  # 78..104
    "\n"
    "Name | Purpose | Expiration\n"  # 106..133: a table without outer pipes
    "---|---|---\n"  # 134..145
    "`ghcc` | Validates the choice about cookies | 180 Days\n"  # 146..200
)


def test_a_table_row_is_a_unit_read_under_its_column_names() -> None:
    found = units(_whole(TABLE))
    rows = [(u.kind, u.start, u.end, u.display, u.header) for u in found]
    assert rows == [
        ("row", 47, 77, "`user_session` | Two weeks", "Name | Expiration"),
        ("row", 78, 104, "`color_mode` | Session", "Name | Expiration"),
        (
            "row",
            146,
            200,
            "`ghcc` | Validates the choice about cookies | 180 Days",
            "Name | Purpose | Expiration",
        ),
    ]
    assert all(TABLE[u.start : u.end] == u.quote for u in found)
    assert found[0].scored == "Name | Expiration\n`user_session` | Two weeks"


def test_a_table_cut_by_its_chunk_keeps_whole_rows_only() -> None:
    text = "| `a_b` | `str | None` | Two weeks |\n| `x` | One ye"  # the chunk ends mid-row
    found = units(_whole(text))
    assert [(u.kind, u.start, u.end, u.display) for u in found] == [
        ("row", 0, 36, "`a_b` | `str | None` | Two weeks")
    ]
    assert found[0].header == ""


def test_a_list_item_right_over_a_code_block_leads_into_it() -> None:
    """SQLModel's docs: each note of a list is followed by the code it is about; that code
    had no lead-in and was no unit, so "How do I make deleting a team delete its heroes?"
    could not cite `Relationship(cascade_delete=True)`."""
    text = (
        "* `ondelete` is put on the `Field()`.\n"  # 0..37
        "* `cascade_delete` is put on the `Relationship()`.\n"  # 38..88
        "\n"
        "```Python\n"  # 90..99
        "heroes: list[Hero] = Relationship(cascade_delete=True)\n"  # 100..154
        "```\n"  # 155..158
        "\n"
        "* A last note.\n"  # 160..174
    )
    found = units(_whole(text))
    assert [(u.kind, u.start, u.end) for u in found] == [
        ("item", 0, 37),
        ("lead_in", 40, 158),
        ("item", 160, 174),
    ]
    assert found[1].display == (
        "`cascade_delete` is put on the `Relationship()`.\n"
        "```Python\nheroes: list[Hero] = Relationship(cascade_delete=True)\n```"
    )


def test_items_and_rows_past_a_lead_in_s_cut_are_units_of_their_own() -> None:
    """A lead-in takes its list or table up to `max_chars`; what lies past the cut was no
    unit at all."""
    items = "".join(
        f"* [Vendor {i}](https://v{i}.example). Service number {i}.\n" for i in range(6)
    )
    rows = "".join(f"| Cookie {i} | Lasts {i} days |\n" for i in range(6))
    text = f"We use these vendors:\n{items}\nThe cookies are:\n| Name | Expiry |\n|---|---|\n{rows}"
    found = units(_whole(text), max_chars=150)
    kinds = [(u.kind, u.display) for u in found]
    assert kinds[0][0] == "lead_in" and "Vendor 1" in kinds[0][1] and "Vendor 2" not in kinds[0][1]
    assert kinds[1:5] == [("item", f"Vendor {i}. Service number {i}.") for i in (2, 3, 4, 5)]
    assert kinds[5][0] == "lead_in" and "Cookie 2" in kinds[5][1] and "Cookie 3" not in kinds[5][1]
    assert kinds[6:] == [("row", f"Cookie {i} | Lasts {i} days") for i in (3, 4, 5)]
    assert [u.header for u in found[6:]] == ["Name | Expiry"] * 3
    assert all(text[u.start : u.end] == u.quote for u in found)
    assert all(a.end <= b.start for a, b in itertools.pairwise(found))  # no character twice


def test_prose_with_a_pipe_in_code_is_no_table() -> None:
    text = "Declare it as `str | None` to make it optional.\nThe default is `None`.\n"
    assert [u.kind for u in units(_whole(text))] == ["sentence", "sentence"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Since which release can I use dataclasses?", True),
        ("Is that deprecated?", True),
        # what became of a feature is told by the change log
        ("My reload setup relied on watchgod. Is that still supported?", True),
        ("An old script uses `--debug` and now fails. What happened to that flag?", True),
        ("Was the `--debug` flag removed?", True),
        ("Does it no longer run on Python 3.8?", True),
        ("How do I remove a header from the response?", False),
        ("How do I make it work with a proxy?", False),
        # pinning a version asks for a practice; a version number still asks about a release
        ("Should I pin the Starlette version in my requirements too?", False),
        ("Should I pin fastapi to 0.110 or to a range?", True),
        ("Which Starlette version should I pin?", True),
    ],
)
def test_a_question_about_what_became_of_a_feature_asks_about_a_version(
    question: str, expected: bool
) -> None:
    assert asks_for_version(question) is expected


def test_code_cut_at_max_chars_is_shown_as_a_closed_block_and_marked_cut() -> None:
    """A lead-in takes its code up to `max_chars` lines; shown without its closing fence, the
    block ran on over every claim after it in the answer (Flask's "Here is how sessions
    work:"). The quote stays the exact span; only the display closes the block and says
    that more follows."""
    code = "".join(f"line_{i} = {i}\n" for i in range(20))
    text = f"Here is how sessions work:\n\n```python\n{code}```\n"
    found = units(_whole(text), max_chars=120)
    assert [u.kind for u in found] == ["lead_in"]
    unit = found[0]
    assert unit.quote == text[unit.start : unit.end]
    # 27 + 1 + 10 + 7 lines of 11, the last without its newline: 114 characters, within 120
    assert (unit.start, unit.end) == (0, 114)
    assert unit.quote.endswith("line_6 = 6")  # cut inside the code: no closing fence here
    assert unit.display == (
        "Here is how sessions work:\n```python\n"
        + "".join(f"line_{i} = {i}\n" for i in range(7))
        + "```\n\n…"
    )


def test_a_list_taken_in_part_is_marked_cut_and_a_whole_one_is_not() -> None:
    items = "".join(f"* Advantage number {i} of the upload.\n" for i in range(5))  # 35 each
    text = f"It has several advantages:\n{items}"
    cut, *rest = units(_whole(text), max_chars=100)
    assert cut.display == (
        "It has several advantages:\n* Advantage number 0 of the upload.\n"
        "* Advantage number 1 of the upload.\n\n…"
    )
    assert [u.kind for u in rest] == ["item"] * 3  # the items past the cut, on their own
    (whole,) = units(_whole(text), max_chars=900)
    assert whole.display == f"It has several advantages:\n{items.rstrip()}"


def test_the_options_of_an_api_reference_are_no_unit() -> None:
    """HTTPX's api.md: `::: httpx.Client` with its mkdocstrings options indented under it
    showed ":docstring: :members: headers cookies ..." as a claim."""
    text = (
        "## Client\n"  # 0..9
        "\n"
        "::: httpx.Client\n"
        "    :docstring:\n"
        "    :members: headers cookies params auth request get head options post\n"
        "\n"
        "An HTTP client, with connection pooling.\n"
    )
    found = units(_whole(text))
    start = text.index("An HTTP")
    assert [(u.start, u.end) for u in found] == [(start, start + 40)]


def test_a_chunk_that_starts_inside_a_list_item_reads_its_indented_body_as_prose() -> None:
    """FastAPI blind b01: a chunk cut inside the `allow_credentials` item opened at the margin,
    so the note indented under the item read as indented code and was shown in a fence."""
    text = (
        "Defaults to `False`.\n"  # 0..20
        "\n"
        "    None of the origins can be `['*']` if credentials are allowed.\n"  # 22..88
        "\n"
        "* `max_age` - Sets a maximum time in seconds. Defaults to `600`.\n"
    )
    inside = _whole(text).model_copy(update={"opens_in_list": True})
    note = "None of the origins can be `['*']` if credentials are allowed."
    found = units(inside)
    assert note in [u.quote for u in found]
    assert not any("```" in u.display for u in found)
    # read as a document of its own, the indented note is code (CommonMark), as before
    assert note not in [u.quote for u in units(_whole(text))]


def test_a_hit_with_nothing_to_cite_gives_its_place_to_the_next() -> None:
    def at(chunk: Chunk, k: int) -> Hit:
        return Hit(chunk=chunk, score_raw=0.5, score_norm=0.9, k_pos=k, k_final=k)

    reference = at(_whole("## OAuth2\n\n::: fastapi.security.OAuth2\n\n::: fastapi.Depends\n"), 1)
    include = at(_whole("{* ../../docs_src/security/tutorial001.py hl[8] *}\n"), 2)
    prose = at(_whole("We pass in the `tokenUrl` parameter when we create the scheme.\n"), 3)
    later = at(_whole("The scheme reads the token from the `Authorization` header.\n"), 4)
    q = "What parameter do you pass to the scheme?"
    assert with_evidence(q, [reference, include, prose, later], 900, 8) == [prose, later]
    # read only until `enough` are kept: the hits after them follow unread
    assert with_evidence(q, [prose, reference, later], 900, 1) == [prose, reference, later]
    # nothing holds evidence: all are kept, as they were
    assert with_evidence(q, [reference, include], 900, 8) == [reference, include]
    assert holds_evidence(prose.chunk, q, 900) and not holds_evidence(include.chunk, q, 900)


def test_a_hit_that_states_the_asked_task_takes_the_last_place_when_none_there_does() -> None:
    def at(text: str, k: int) -> Hit:
        return Hit(chunk=_whole(text), score_raw=0.5, score_norm=0.9, k_pos=k, k_final=k)

    topic = [at(f"Server-Sent Events carry data number {i}.\n", i) for i in range(1, 4)]
    task = at("To stream Server-Sent Events, use `yield` and set `EventSourceResponse`.\n", 4)
    loose = at("To stream binary data, use `StreamingResponse`.\n", 4)  # the verb only
    q = "How do I stream Server-Sent Events from an endpoint?"
    # two places: the task, ranked 4th, takes the second; the 2nd and 3rd follow it
    got = with_direct_answer(q, [*topic, task], 2, 4, 900)
    assert got == [topic[0], task, topic[1], topic[2]]
    # past the window, or only a loose match, or already in the places: as they were
    assert with_direct_answer(q, [*topic, task], 2, 3, 900) == [*topic, task]
    assert with_direct_answer(q, [*topic, loose], 2, 4, 900) == [*topic, loose]
    assert with_direct_answer(q, [task, *topic], 2, 4, 900) == [task, *topic]
    # a question that asks no how-to moves nothing
    what = "What are Server-Sent Events?"
    assert with_direct_answer(what, [*topic, task], 2, 4, 900) == [*topic, task]


def test_an_item_shows_the_list_and_code_nested_under_it_line_by_line() -> None:
    """FastAPI dev f07: an item over three sub-items was shown on one line ("... from the
    API. * But it needs authentication ... * So, ..."); a policy's "please let us know:" item
    listed the fields it asks for the same way. The quote is the exact span either way."""
    text = (
        "* The frontend needs to fetch some more data from the **API**.\n"
        "    * But it needs authentication.\n"
        "    * So it sends a header `Authorization`.\n"
        "* To run it, call:\n"
        "\n"
        "    ```console\n"
        "    $ fastapi run\n"
        "    ```\n"
        "* A plain item that\n"
        "  wraps onto a second line.\n"
    )
    nested, code, plain = units(_whole(text))
    assert nested.kind == "item" and nested.quote == text[: text.index("* To run")].rstrip()
    assert nested.display == (
        "The frontend needs to fetch some more data from the API.\n"
        "* But it needs authentication.\n"
        "* So it sends a header `Authorization`."
    )
    assert code.display == "To run it, call:\n```console\n$ fastapi run\n```"
    assert plain.display == "A plain item that wraps onto a second line."


def test_a_list_under_a_lead_in_or_an_item_reads_as_prose_does_code_as_written() -> None:
    """Site policy: "We do not allow content or activity on GitHub that:" showed its items
    with their link syntax ("* directly supports [unlawful active attack or malware
    campaigns](/site-policy/...) that ..."), where a sentence shows a link as its text. Each
    line of a list now reads as prose does, marker and indentation kept; code stays as
    written. The quote is the exact span either way."""
    text = (
        "We do not allow content on GitHub that:\n"
        "\n"
        "* directly supports [malware campaigns](/site-policy/malware) that cause **harm**;\n"
        "    * or [spam](https://example.com/spam)\n"
        "* is `**kept**` in code\n"
        "\n"
        "Then a paragraph.\n"
        "\n"
        "* An item, see [the docs](/docs).\n"
        "    * with a [sub-item](/sub)\n"
        "* A last [item](/item) of the list.\n"
    )
    lead, _, item, last = units(_whole(text))
    assert lead.quote == text[: text.index("\n\nThen")]
    assert lead.display == (
        "We do not allow content on GitHub that:\n"
        "* directly supports malware campaigns that cause harm;\n"
        "    * or spam\n"
        "* is `**kept**` in code"
    )
    assert item.quote == text[text.index("* An item") : text.index("\n* A last")]
    assert item.display == "An item, see the docs.\n* with a sub-item"
    assert last.display == "A last item of the list."
    code = '* Run [it](/run):\n\n    ```python\n    x = "[a](b)"  # **kept**\n    ```'
    assert display_block(code) == (
        '* Run it:\n\n    ```python\n    x = "[a](b)"  # **kept**\n    ```'
    )


def test_a_sentence_a_list_or_code_interrupts_goes_on_after_it() -> None:
    """FastAPI: "Any function that is valid to use with:" over two items, then "would be valid
    to use as a **FastAPI** dependency." The lead-in stopped at the list and the rest of its
    sentence stood alone; both halves said nothing true on their own. The paragraph after
    the list or code finishes the sentence when it opens in lower case or with "...", unless
    it leads into the next block itself ("or" between two URLs)."""
    text = (
        "Any function that is valid to use with:\n"
        "\n"
        "* `@contextmanager` or\n"
        "* `@asynccontextmanager`\n"
        "\n"
        "would be valid to use as a **FastAPI** dependency. It can also yield.\n"
        "\n"
        "So, the line:\n"
        "\n"
        "```Python\n"
        "uvicorn.run(app)\n"
        "```\n"
        "\n"
        "...will not be executed.\n"
        "\n"
        "If you go to:\n"
        "\n"
        "```\n"
        "/items?short=1\n"
        "```\n"
        "\n"
        "or\n"
        "\n"
        "```\n"
        "/items?short=on\n"
        "```\n"
        "\n"
        "you will see `short` as `True`.\n"
    )
    found = units(_whole(text))
    assert [u.kind for u in found] == ["lead_in", "sentence", "lead_in", "lead_in", "lead_in"]
    with_, also, line, go, either = found
    assert with_.quote == text[: text.index(" It can")]
    assert with_.display == (
        "Any function that is valid to use with:\n"
        "* `@contextmanager` or\n"
        "* `@asynccontextmanager`\n"
        "\n"
        "would be valid to use as a FastAPI dependency."
    )
    assert also.quote == "It can also yield."
    assert line.quote == text[text.index("So,") : text.index("\n\nIf you")]
    assert line.display.endswith("```\n\n...will not be executed.")
    # "or" leads into the second URL: the first lead-in stops at its code, as before
    assert go.quote == text[text.index("If you") : text.index("\n\nor")]
    assert either.quote == text[text.index("\n\nor\n") + 2 :].rstrip()
    assert all(text[u.start : u.end] == u.quote for u in found)
    assert all(a.end <= b.start for a, b in itertools.pairwise(found))  # no character twice


def test_a_sentence_that_runs_on_into_a_list_leads_into_it() -> None:
    """Site policy dev g33/g34: "To count as complete, a request must" over its items, and
    "When we receive a notice ..., we" over what GitHub then does. The sentence was left out
    as a fragment and its items led answers on their own ("post the official request ...").
    A line that has ended (a stop, an image) over a list leads into nothing."""
    text = (
        "To count as complete, a request must\n"
        "* come from a relevant, official government agency\n"
        "* specify the source of illegality in that jurisdiction.\n"
        "\n"
        "![Swagger UI](https://example.com/docs.png)\n"
        "\n"
        "* Interactive documentation in the browser\n"
        "* Alternative documentation with ReDoc\n"
    )
    lead, *rest = units(_whole(text))
    assert (lead.kind, lead.start) == ("lead_in", 0)
    assert lead.display == (
        "To count as complete, a request must\n"
        "* come from a relevant, official government agency\n"
        "* specify the source of illegality in that jurisdiction."
    )
    items = [u for u in rest if u.kind == "item"]
    assert [u.display for u in items] == [
        "Interactive documentation in the browser",
        "Alternative documentation with ReDoc",
    ]
    assert not any(u.kind == "lead_in" for u in rest)


def test_an_item_s_rest_where_a_chunk_opens_in_a_list_does_not_run_on_into_its_siblings() -> None:
    """Site policy tune2 q43: a chunk cut inside the item "Ignoring a User's request for
    deletion. When a User deletes your Extension ... within thirty days" opened on that
    sentence, which has no stop; its sibling items after it do not finish it."""
    text = (
        "When a User deletes your Extension you must delete all Personal Data within thirty days\n"
        "* Merging Personal Data with data gathered from other sources\n"
        "* Failing to notify Users about privacy and their Personal Data\n"
    )
    inside = _whole(text).model_copy(update={"opens_in_list": True})
    found = units(inside)
    assert [u.kind for u in found] == ["sentence", "item", "item"]
    assert found[0].display.endswith("within thirty days")
    # read as a document of its own, the sentence runs on into the list
    assert [u.kind for u in units(_whole(text))] == ["lead_in"]


def test_an_item_that_leads_into_a_picture_is_no_claim() -> None:
    """FastAPI dev f45 showed "in PyCharm:" as a claim: the item leads into a screenshot,
    which is no unit, so what it introduces is not there. The item beside it that says
    something is offered."""
    text = (
        "* in [PyCharm](https://www.jetbrains.com/pycharm/):\n"
        "\n"
        "![editor support](https://example.com/pycharm-completion.png)\n"
        "\n"
        "* You get completion for every key of the JSON body.\n"
    )
    lead, said = (u for u in units(_whole(text)) if u.kind == "item")
    assert lead.display == "in PyCharm:"
    question = "Does PyCharm complete the keys of a JSON body?"
    assert not admissible(lead, question)
    assert admissible(said, question)


def test_an_item_s_closing_lead_in_without_its_content_is_left_out_of_it() -> None:
    """GitHub's terms: the item "You must be a human ... are not permitted. We do permit
    machine accounts:" is followed by the next item, not by what it leads into; its first
    two sentences are the unit, so dropping the lead-in does not drop what the item says."""
    text = (
        "* You must be a human to create an Account. Bots are not permitted. "
        "We do permit machine accounts:\n"
        "* One person may maintain no more than one free Account.\n"
    )
    first, second = units(_whole(text))
    assert first.quote == "* You must be a human to create an Account. Bots are not permitted."
    assert first.display == "You must be a human to create an Account. Bots are not permitted."
    assert admissible(first, "Can a bot create a GitHub account?")
    assert second.display == "One person may maintain no more than one free Account."
