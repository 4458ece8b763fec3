"""`render`: the answer text with its [n] markers, read back by a CommonMark parser."""

from __future__ import annotations

from markdown_it import MarkdownIt

from server.core.contracts import CitationSlot, Claim, ClaimType, Offsets
from server.query.claims import render


def _claim(cid: str, text: str, n: int) -> Claim:
    slot = CitationSlot(n=n, snippet_id="s", offsets=Offsets(start=0, end=4), quote="text")
    return Claim(id=cid, text=text, type=ClaimType.FACT, citations=(slot,))


CODE = "Run the server with:\n```console\n$ fastapi dev main.py\n```"
TABLE = "The cookies are:\n| Name | Expiry |\n|---|---|\n| `session` | Two weeks |"


def _code_texts(answer: str) -> list[str]:
    tokens = MarkdownIt("commonmark").parse(answer)
    return [t.content for t in tokens if t.type == "fence"]


def test_a_claim_ending_in_code_takes_its_markers_after_the_closing_fence() -> None:
    """ "``` [1]" is no closing fence: the code block ran on over every claim after it."""
    answer = render([_claim("c1", CODE, 1), _claim("c2", "It reloads on changes.", 2)])
    assert answer == (
        "Run the server with:\n```console\n$ fastapi dev main.py\n```\n[1]\n\n"
        "It reloads on changes. [2]"
    )
    assert _code_texts(answer) == ["$ fastapi dev main.py\n"]  # one block, nothing else in it


def test_a_claim_ending_in_a_table_row_takes_its_markers_on_the_next_line() -> None:
    answer = render([_claim("c1", TABLE, 1)])
    assert answer.endswith("| `session` | Two weeks |\n\n[1]")
    tokens = MarkdownIt("commonmark").enable("table").parse(answer)
    cells = [t.content for t in tokens if t.type == "inline"]
    # the marker is neither a cell of the last row nor a row of its own
    assert cells[-3:] == ["`session`", "Two weeks", "[1]"]
    assert [t.type for t in tokens][-4:] == [
        "table_close",
        "paragraph_open",
        "inline",
        "paragraph_close",
    ]


def test_prose_and_lists_keep_their_markers_on_their_last_line() -> None:
    listed = "Two things:\n* one\n* two"
    answer = render([_claim("c1", "A sentence.", 1), _claim("c2", listed, 2)])
    assert answer == "A sentence. [1]\n\nTwo things:\n* one\n* two [2]"
