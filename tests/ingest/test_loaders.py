"""Loaders refuse hostile or unreadable files with a `LoadError`, never a raw exception."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

import pytest

from ingest.loaders import (
    MAX_TITLE_CHARS,
    SUPPORTED,
    LoadError,
    build_doc,
    join_pages,
    load_file,
)
from server.core import markdown
from tests.files import minimal_pdf

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_test_pdf_is_readable() -> None:
    doc, pages = build_doc("keys.pdf", minimal_pdf(), mtime=T0)
    assert "signing keys" in doc.text and pages == [0] and doc.media_type == "pdf"


def test_pages_join_with_a_blank_line_unless_a_sentence_runs_on() -> None:
    first = "We use your data to keep the service running and to update your"
    second = "account list. We delete it after a year.\n• \n• "
    third = "Payments are monthly.\n3"
    fourth = "Refunds are made within 30 days."
    text, starts = join_pages([first, second, third, fourth])
    # page 1 stops mid-sentence: a line break joins it to page 2, whose own text starts
    # after "account list. "; page 2 ends a sentence, page 3 ends in a page number
    assert text == (
        first + "\naccount list. We delete it after a year.\n\n"
        "Payments are monthly.\n3\n\n" + fourth + "\n\n"
    )
    assert starts[0] == 0
    assert text[starts[1] :].startswith("We delete it after a year.")
    assert text[starts[2] :].startswith("Payments are monthly.")
    assert text[starts[3] :].startswith("Refunds are made")
    # the carried sentence is one paragraph, in page 1's section
    assert "to update your\naccount list." in text[: starts[1]]


def test_a_heading_or_a_short_line_at_a_page_end_carries_nothing_over() -> None:
    text, starts = join_pages(["Your Payment", "Payment. We bill monthly."])
    assert text == "Your Payment\n\nPayment. We bill monthly.\n\n" and starts == [0, 14]
    # a page that is the rest of one sentence with no end in sight keeps its start
    long_first = "A sentence that goes on for quite a while and then stops at a page"
    text, starts = join_pages([long_first, "break without any end mark"])
    assert starts == [0, len(long_first) + 1]


def test_a_pdf_line_that_reads_as_a_heading_gets_a_paragraph_break() -> None:
    body = "Mozilla offers various services to improve your privacy and security\n" * 6
    page = (
        "Mozilla Subscription Services |\nTerms of Service\nEffective March 24, 2026\n"
        + body
        + "online for everyone who subscribes to them. Read these terms with care.\n"
        "Your Payment\nPayment. We bill every subscription to the card you gave us, and\n"
        "monthly and\nYearly plans exist for every one of the services named above.\n"
        "• First item\n• Second item"
    )
    text, _ = join_pages([page])
    assert text == (
        "Mozilla Subscription Services |\n\nTerms of Service\n\nEffective March 24, 2026\n\n"
        + body
        + "online for everyone who subscribes to them. Read these terms with care.\n"
        "Your Payment\n\nPayment. We bill every subscription to the card you gave us, and\n"
        # "monthly and" is short but follows an unfinished line: the paragraph goes on;
        # list items are never headings
        "monthly and\nYearly plans exist for every one of the services named above.\n"
        "• First item\n• Second item\n\n"
    )
    # a narrow column: its full lines are no headings, even after a finished line
    column = "The notice ends here.\nThe agreement with\nMozilla binds us all.\nAnd so on."
    assert join_pages([column])[0] == column + "\n\n"


def _mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(out))
        kind = rng.randrange(4)
        if kind == 0:  # overwrite one byte
            out[at] = rng.randrange(256)
        elif kind == 1:  # replace with a PDF-meaningful token
            token = rng.choice([b"0", b"9999999999", b"-1", b"R", b"<<", b">>", b"[", b"]"])
            out[at : at + len(token)] = token
        elif kind == 2:  # delete a run
            del out[at : at + rng.randint(1, 16)]
        else:  # duplicate a run
            out[at:at] = out[at : at + rng.randint(1, 64)]
    return bytes(out)


def test_mutated_pdfs_give_text_or_a_load_error() -> None:
    rng = random.Random(20261123)
    valid = minimal_pdf()
    outcomes = {"text": 0, "refused": 0}
    started = time.perf_counter()
    for _ in range(200):
        data = _mutate(valid, rng)
        try:
            doc, _ = build_doc("m.pdf", data, mtime=T0)
        except LoadError as exc:
            assert str(exc), data
            outcomes["refused"] += 1
        else:
            assert isinstance(doc.text, str)
            outcomes["text"] += 1
    assert outcomes["text"] and outcomes["refused"]  # the mutations exercise both paths
    assert time.perf_counter() - started < 60


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(minimal_pdf()[: len(minimal_pdf()) // 2], id="truncated"),
        pytest.param(minimal_pdf()[:9], id="header-only"),
        pytest.param(b"hello, I am plain text with a .pdf name\n", id="not-a-pdf"),
        pytest.param(b"\x89PNG\r\n\x1a\n" + bytes(range(256)), id="png-named-pdf"),
        pytest.param(b"%PDF-1.4\n" + b"1 0 obj << /Length 99999999999 >>\n" * 3, id="garbage"),
    ],
)
def test_unreadable_pdfs_say_what_to_do(data: bytes) -> None:
    with pytest.raises(LoadError, match=r"re-export it or remove it|no extractable text"):
        build_doc("report.pdf", data, mtime=T0)


def test_pypdf_limit_is_a_load_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError

    def boom(self: PdfReader, *_: object, **__: object) -> None:
        raise LimitReachedError("decompression limit")

    monkeypatch.setattr(PdfReader, "__init__", boom)
    with pytest.raises(LoadError, match="not a readable PDF: decompression limit"):
        build_doc("big.pdf", minimal_pdf(), mtime=T0)


def _alias_bomb() -> bytes:
    names = "abcdefghi"
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"{n}: &{n} [{','.join(f'*{p}' for _ in range(9))}]" for p, n in pairwise(names)]
    return ("---\n" + "\n".join(lines) + "\ntitle: *i\n---\n# Hi\n\nBody.\n").encode()


def test_front_matter_alias_bomb_is_refused_fast() -> None:
    data = _alias_bomb()
    assert len(data) < 600
    started = time.perf_counter()
    with pytest.raises(LoadError, match="front matter"):
        build_doc("bomb.md", data, mtime=T0)
    assert time.perf_counter() - started < 1.0


def test_a_few_aliases_are_still_fine() -> None:
    data = b"---\nname: &n Keys\ntitle: *n\n---\nBody.\n"
    doc, _ = build_doc("a.md", data, mtime=T0)
    assert doc.title == "Keys"


@pytest.mark.parametrize(
    ("front", "reason"),
    [
        ("title: [a, b]", "'title' must be text"),
        ("title: {x: 1}", "'title' must be text"),
        ("doc_id: [1]", "'doc_id' must be text"),
        ("source_url: {a: b}", "'source_url' must be text"),
        ("tags: [[a], b]", "'tags' must be"),
        ("tags: {a: b}", "'tags' must be"),
        ("tags: [" + ",".join(f"t{i}" for i in range(500)) + "]", "tags"),
        ("title: " + "[" * 5000 + "]" * 5000, "front matter"),
    ],
)
def test_front_matter_values_must_have_the_expected_shape(front: str, reason: str) -> None:
    with pytest.raises(LoadError, match=reason):
        build_doc("a.md", f"---\n{front}\n---\nBody.\n".encode(), mtime=T0)


def test_long_titles_are_capped() -> None:
    doc, _ = build_doc("a.md", f"---\ntitle: {'T' * 5000}\n---\nBody.\n".encode(), mtime=T0)
    assert len(doc.title) <= MAX_TITLE_CHARS
    doc, _ = build_doc("b.md", f"# {'H' * 5000}\n\nBody.\n".encode(), mtime=T0)
    assert len(doc.title) <= MAX_TITLE_CHARS
    doc, _ = build_doc("c.md", b"---\ntitle: 1984\n---\nBody.\n", mtime=T0)
    assert doc.title == "1984"  # a scalar that YAML reads as a number is still a title


def test_broken_front_matter_is_still_ignored() -> None:
    doc, _ = build_doc("a.md", b"---\ntitle: [unclosed\n---\n# Real\n\nBody.\n", mtime=T0)
    assert doc.title == "Real"


def test_an_mdx_page_is_markdown_whose_module_lines_and_anchors_are_markup() -> None:
    data = (
        b"---\ntitle: Cache\n---\n\nimport Tabs from '@theme/Tabs';\n\n"
        b"## Cache Provider [#cache-provider]\n\n<Callout>\n  Upgrade first.\n</Callout>\n"
    )
    doc, pages = build_doc("docs/cache.mdx", data, mtime=T0)
    assert (doc.media_type, doc.title, pages) == ("markdown", "Cache", [])
    body = doc.text[markdown.body_start(doc.text) :]
    assert [b.kind for b in markdown.blocks(body)] == [
        "directive",  # the import
        "heading",
        "html",
        "paragraph",  # the callout's text
        "html",
    ]
    (heading,) = markdown.headings(doc.text)
    assert (heading.text, heading.anchor) == ("Cache Provider", "cache-provider")


@pytest.mark.parametrize(
    ("name", "shown"),
    [("evil.exe", "'.exe'"), ("noext", "no extension"), (".md", "'.md'"), ("a.docx", "'.docx'")],
)
def test_unsupported_names_list_the_supported_types(name: str, shown: str) -> None:
    with pytest.raises(LoadError) as info:
        build_doc(name, b"hello", mtime=T0)
    message = str(info.value)
    assert message.startswith("unsupported file type") and shown in message
    assert "citegate reads .md, .markdown, .mdx, .rst, .txt, .html, .htm, .pdf" in message
    assert SUPPORTED == (".md", ".markdown", ".mdx", ".rst", ".txt", ".html", ".htm", ".pdf")


def test_unsupported_upload_in_a_temp_folder(tmp_path: Path) -> None:
    upload = tmp_path / "evil.exe"
    upload.write_bytes(b"MZ\x90\x00")
    with pytest.raises(LoadError, match=r"unsupported file type '\.exe'") as info:
        load_file(upload, tmp_path, max_bytes=1000)
    assert str(tmp_path) not in str(info.value)


def test_errors_name_the_file_not_the_server_path(tmp_path: Path) -> None:
    missing = tmp_path / "gone.md"
    with pytest.raises(LoadError) as info:
        load_file(missing, tmp_path, max_bytes=1000)
    assert "gone.md" in str(info.value) and str(tmp_path) not in str(info.value)
    folder = tmp_path / "dir.md"
    folder.mkdir()
    with pytest.raises(LoadError) as info:
        load_file(folder, tmp_path, max_bytes=1000)
    assert "dir.md" in str(info.value) and str(tmp_path) not in str(info.value)
    big = tmp_path / "big.md"
    big.write_text("word " * 100)
    with pytest.raises(LoadError) as info:
        load_file(big, tmp_path, max_bytes=50)
    assert str(tmp_path) not in str(info.value)


def test_an_impossible_date_does_not_crash_the_loader() -> None:
    doc, _ = build_doc("a.md", b"---\nupdated_at: 2025-13-45\n---\n# Real\n\nBody.\n", mtime=T0)
    assert (doc.title, doc.updated_at) == ("Real", T0)  # the block is ignored, like bad YAML


def test_an_rst_page_is_read_as_markdown_text_with_its_title() -> None:
    data = b"Deploying\n=========\n\nUse :doc:`gunicorn`.\n\n.. note::\n   Not the dev server.\n"
    doc, pages = build_doc("deploying/index.rst", data, mtime=T0)
    assert (doc.media_type, doc.title, pages) == ("rst", "Deploying", [])
    assert doc.text == "# Deploying\n\nUse gunicorn.\n\n/// note\n\nNot the dev server.\n\n///\n"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b".. toctree::\n   intro\n\n.. a comment\n", "has no text"),
        (b"\x00\x01binary", "binary file"),
        (b"Caf\xe9\n", "not UTF-8"),
        # 200 lists each inside the last: docutils recurses once per level
        (b"".join(b"  " * i + b"- item\n\n" for i in range(200)), "nests too deeply"),
    ],
)
def test_an_rst_file_without_text_is_refused_with_its_reason(data: bytes, reason: str) -> None:
    with pytest.raises(LoadError, match=reason):
        build_doc("empty.rst", data, mtime=T0)
