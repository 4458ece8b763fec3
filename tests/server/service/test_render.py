"""The cited section rendered: noise lines gone, raw HTML escaped, the exact span marked.

Every expected value is the HTML worked out by hand from the small input above it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from citegate.commands.serve_cmd import build_ingestor
from server.core.settings import load_settings
from server.service.app import create_app
from server.service.render import clean, render_section, source_link
from tests.engine import offline_engine

DOC = (
    "---\ntitle: T\n---\n"
    "# Intro { #intro }\n"
    "\n"
    "Use `app.get` to add a route.\n"
    "\n"
    "{* ../../docs_src/first/tutorial001.py hl[3] *}\n"
    "\n"
    "::: fastapi.FastAPI\n"
    "    options:\n"
    "        members: true\n"
    "\n"
    "- one\n"
    "- two\n"
    "\n"
    "## Next { #next }\n"
    "\n"
    "Other text.\n"
)


def _span(doc: str, quote: str) -> tuple[int, int]:
    start = doc.index(quote)
    return start, start + len(quote)


def test_noise_lines_go_and_an_include_becomes_a_code_reference() -> None:
    r = render_section(DOC, *_span(DOC, "add a route."))
    assert r.html == (
        "<h1>Intro</h1>\n"
        '<p>Use <code>app.get</code> to <mark id="highlight">add a route.</mark></p>\n'
        '<p><span class="code-ref">code: <code>../../docs_src/first/tutorial001.py</code>'
        "</span></p>\n"
        "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
    )
    assert r.highlighted and r.includes == ("../../docs_src/first/tutorial001.py",)
    assert (r.start, r.end) == (DOC.index("# Intro"), DOC.index("## Next"))


def test_clean_maps_each_copied_run_back_to_its_source() -> None:
    text = "# A { #a }\nx\n::: m.N\n    opt: 1\ny\n"
    c = clean(text, offset=100)
    assert c.text == "# A\nx\ny\n"
    # "# A" (0-3), then "\nx\n" (10-13) after the anchor, then "y\n" (32-34) after the block
    assert c.pieces == ((100, 103, 0), (110, 113, 3), (132, 134, 6))


def test_admonition_bodies_come_out_one_level_and_block_markers_go() -> None:
    text = '!!! tip "T"\n    Be **brief**.\n\n/// note\nPlain.\n///\n'
    assert clean(text).text == "Be **brief**.\n\nPlain.\n"


def test_a_snippet_include_becomes_a_code_reference() -> None:
    snippet, braces = clean('A.\n\n--8<-- "CONTRIBUTING.md"\n'), clean("A.\n\n{* ../x.py *}\n")
    assert snippet.text == braces.text  # a REF marker paragraph, as for `{* *}` includes
    assert (snippet.includes, braces.includes) == (("CONTRIBUTING.md",), ("../x.py",))


def test_a_content_tab_label_goes_and_its_indented_body_comes_out_one_level() -> None:
    text = '=== "Windows"\n\n    Use `irm`:\n\n    ```\n    irm x | iex\n    ```\n'
    assert clean(text).text == "\nUse `irm`:\n\n```\nirm x | iex\n```\n"


def test_raw_html_in_a_source_is_escaped_text() -> None:
    doc = '# S\n\nBad <script>alert(1)</script> and <img src=x onerror="alert(2)"> here.\n'
    r = render_section(doc, *_span(doc, "here."))
    assert r.html == (
        "<h1>S</h1>\n<p>Bad &lt;script&gt;alert(1)&lt;/script&gt; and "
        '&lt;img src=x onerror=&quot;alert(2)&quot;&gt; <mark id="highlight">here.</mark></p>\n'
    )


def test_javascript_links_and_images_are_not_rendered() -> None:
    doc = "# S\n\n[x](javascript:alert(1)) ![i](http://e.org/i.png) [ok](https://e.org/a).\n"
    html = render_section(doc, *_span(doc, "[x]")).html
    assert "<img" not in html and 'href="javascript' not in html
    assert '<a href="https://e.org/a">ok</a>' in html


def test_a_span_across_list_items_is_marked_per_text_run() -> None:
    doc = "# L\n\n- first item\n- second item\n"
    r = render_section(doc, *_span(doc, "item\n- second"))
    assert r.html == (
        "<h1>L</h1>\n<ul>\n"
        '<li>first <mark id="highlight">item</mark></li>\n'
        "<li><mark>second</mark> item</li>\n</ul>\n"
    )


def test_a_span_starting_at_a_list_marker_is_marked_after_it() -> None:
    doc = "# L\n\n- first item\n"
    r = render_section(doc, *_span(doc, "- first item"))
    assert '<li><mark id="highlight">first item</mark></li>' in r.html


def test_a_span_that_cannot_be_marked_leaves_the_section_unmarked() -> None:
    doc = "# L\n\nSee [the docs](https://e.org/page) now.\n"
    r = render_section(doc, *_span(doc, "e.org/page) now."))  # opens inside a URL
    assert not r.highlighted and "<mark" not in r.html and "\ue000" not in r.html


def test_marker_characters_in_a_source_cannot_forge_a_mark() -> None:
    doc = "# L\n\nA \ue000fake\ue001 mark and a real one.\n"
    r = render_section(doc, *_span(doc, "a real one."))
    assert r.html.count("<mark") == 1 and "\ufffdfake\ufffd" in r.html


@pytest.mark.parametrize("span", [(5, 5), (-1, 2), (0, 10_000)])
def test_a_span_outside_the_text_is_refused(span: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="is not inside"):
        render_section("# A\n\nabc\n", *span)


@pytest.mark.parametrize(
    ("url", "link"),
    [
        ("https://e.org/a", "https://e.org/a"),
        ("http://e.org", "http://e.org"),
        ("docs/a.md", None),
        ("javascript:alert(1)", None),
        ("https://e.org/a b", None),
    ],
)
def test_only_http_urls_become_links(url: str, link: str | None) -> None:
    assert source_link(url) == link


def test_the_snippet_route_returns_the_rendered_section_for_a_citation(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        api_keys={"k": {"role": "user"}},
        retrieval={"min_rerank_score": 0.05},
    )
    app = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    with TestClient(app, headers={"Authorization": "Bearer k"}) as client:
        q = {"question": "What does the gate do with a fabricated citation?"}
        cite = client.post("/v1/ask", json=q).json()["citations"][0]
        span = cite["span"]
        url = f"/v1/snippets/{cite['snippet_id']}"
        body = client.get(url, params={"start": span["start"], "end": span["end"]}).json()
        rendered = body["rendered"]
        assert (
            rendered["highlighted"]
            and f'<mark id="highlight">{cite["quote"]}' in (rendered["html"])
        )
        assert body["link"] is None and body["path"] == "integrity-gate.md"
        outside = client.get(url, params={"start": 0, "end": body["offsets"]["end"] + 1})
        assert outside.status_code == 422 and "pass a citation's span" in outside.json()["message"]
