"""reStructuredText is written out as the Markdown every later stage reads (`ingest.rst`).

Every expected text below is worked out by hand from Sphinx's rendering of the same markup.
"""

from __future__ import annotations

from pathlib import Path

from ingest.rst import to_markdown
from server.core import markdown


def test_sections_become_headings_of_their_depth_and_paragraphs_one_line() -> None:
    text = (
        "Quickstart\n==========\n\nEager to get\nstarted?\n\n"
        "Routing\n-------\n\nUse routes.\n\nVariable Rules\n~~~~~~~~~~~~~~\n\nAdd parts.\n\n"
        "Debug\n-----\n\nOn.\n"
    )
    assert to_markdown(text) == (
        "# Quickstart\n\nEager to get started?\n\n## Routing\n\nUse routes.\n\n"
        "### Variable Rules\n\nAdd parts.\n\n## Debug\n\nOn.\n"
    )
    assert [h.text for h in markdown.headings(to_markdown(text))] == [
        "Quickstart",
        "Routing",
        "Variable Rules",
        "Debug",
    ]


def test_sphinx_roles_are_shown_as_sphinx_shows_them() -> None:
    text = (
        "Use :meth:`~flask.Flask.route`, :class:`.Request`, :func:`url_for`, "
        ":data:`SECRET_KEY`, :file:`.env`, :ref:`the server <server>`, :doc:`/cli`, "
        ":ref:`label` and ``literal`` with *emphasis* and **strong** text.\n"
    )
    assert to_markdown(text) == (
        "Use `route()`, `Request`, `url_for()`, `SECRET_KEY`, `.env`, the server, cli, "
        "label and `literal` with *emphasis* and **strong** text.\n"
    )


def test_a_bare_label_is_shown_as_its_section_title_or_its_words() -> None:
    text = (
        ".. _sec-cookie:\n\nSet-Cookie options\n==================\n\nThey matter.\n\n"
        "See :ref:`sec-cookie` and :ref:`address-already-in-use`.\n"
    )
    assert to_markdown(text) == (
        "# Set-Cookie options\n\nThey matter.\n\n"
        "See Set-Cookie options and address already in use.\n"
    )


def test_links_keep_their_target_and_escapes_are_removed() -> None:
    text = "Read `the docs <https://example.org/x>`_ and `gevent`_ on \\*nix.\n\n.. _gevent: https://www.gevent.org/\n"
    assert to_markdown(text) == (
        "Read [the docs](https://example.org/x) and [gevent](https://www.gevent.org/) on *nix.\n"
    )


def test_code_blocks_are_fenced_with_their_language_and_caption() -> None:
    text = (
        "Run it::\n\n    $ flask run\n\n"
        ".. code-block:: python\n    :caption: ``app.py``\n    :linenos:\n\n"
        "    app = Flask(__name__)\n"
    )
    assert to_markdown(text) == (
        "Run it:\n\n```\n$ flask run\n```\n\n`app.py`:\n\n```python\napp = Flask(__name__)\n```\n"
    )


def test_admonitions_and_version_notes() -> None:
    text = (
        ".. note::\n   Keep it secret.\n\n"
        ".. admonition:: Externally Visible\n\n   Use ``--host``.\n\n"
        ".. versionchanged:: 2.0\n   Uses ``--app``.\n\n"
        ".. versionadded:: 3.1\n\n"
        ".. deprecated:: 3.2 Use :class:`AppContext`.\n"
    )
    assert to_markdown(text) == (
        "/// note\n\nKeep it secret.\n\n///\n\n"
        "/// note | Externally Visible\n\nUse `--host`.\n\n///\n\n"
        "Changed in version 2.0: Uses `--app`.\n\n"
        "Added in version 3.1.\n\n"
        "Deprecated since version 3.2: Use `AppContext`.\n"
    )


def test_object_descriptions_are_headings_and_autodoc_a_reference() -> None:
    text = (
        "Config\n======\n\n.. py:data:: DEBUG\n\n   Whether debug mode is enabled.\n\n"
        "   Default: ``False``\n\n.. autoclass:: flask.Flask\n   :members:\n\n"
        ".. toctree::\n   :maxdepth: 2\n\n   quickstart\n"
    )
    assert to_markdown(text) == (
        "# Config\n\n## `DEBUG`\n\nWhether debug mode is enabled.\n\nDefault: `False`\n\n"
        "::: flask.Flask\n"
    )


def test_lists_tables_and_definitions() -> None:
    text = (
        "- one\n- two\n\n  more\n\n#. first\n#. second\n\n"
        "======  =====\nName    Says\n======  =====\n``a``   yes\n``b``   no\n======  =====\n\n"
        "========  =================\n``int``   positive integers\n``path``  with slashes\n"
        "========  =================\n\n"
        "term\n    Its definition.\n\n:param x: The value.\n"
    )
    assert to_markdown(text) == (
        "- one\n- two\n\n  more\n\n1. first\n2. second\n\n"
        "| Name | Says |\n| --- | --- |\n| `a` | yes |\n| `b` | no |\n\n"
        "- `int`: positive integers\n- `path`: with slashes\n\n"
        "- term: Its definition.\n\n- param x: The value.\n"
    )


def test_tabs_are_written_as_content_tabs() -> None:
    text = (
        ".. tabs::\n\n   .. group-tab:: macOS\n\n      .. code-block:: text\n\n"
        "         $ . .venv/bin/activate\n\n   .. group-tab:: Windows\n\n"
        "      Run this.\n"
    )
    out = to_markdown(text)
    assert out == (
        '=== "macOS"\n\n    ```text\n    $ . .venv/bin/activate\n    ```\n\n'
        '=== "Windows"\n\n    Run this.\n'
    )
    assert markdown.tab_label(out.splitlines()[0]) == "macOS"


def test_no_file_is_read_and_raw_markup_is_dropped(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET VALUE\n")
    text = (
        f"Intro.\n\n.. include:: {secret}\n\n.. literalinclude:: {secret}\n\n"
        f".. csv-table:: Data\n   :file: {secret}\n\n"
        ".. raw:: html\n\n   <script>alert(1)</script>\n\n.. This is a comment.\n\nEnd.\n"
    )
    out = to_markdown(text)
    assert "SECRET" not in out and "script" not in out and "comment" not in out
    assert out == f'Intro.\n\n--8<-- "{secret}"\n\n--8<-- "{secret}"\n\nEnd.\n'


def test_broken_markup_and_unknown_directives_and_roles_never_raise() -> None:
    # an underline shorter than four characters is text, as docutils and Sphinx read it
    assert to_markdown("Title\n===\n\nText.\n") == "Title ===\n\nText.\n"
    assert to_markdown(".. mystery:: arg\n\n   Lost body.\n\nKept.\n") == "Kept.\n"
    assert to_markdown("See :unknown:`thing` here.\n") == "See thing here.\n"
    assert to_markdown("An *unclosed emphasis.\n") == "An *unclosed emphasis.\n"
    assert to_markdown("") == "" and to_markdown(".. only a comment\n") == ""
