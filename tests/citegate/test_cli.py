"""Argument handling that needs no index or model."""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

from typer.testing import CliRunner

from citegate.cli import app


def test_a_misspelt_gate_mode_is_an_error_not_the_lenient_gate() -> None:
    result = CliRunner().invoke(app, ["ask", "What is X?", "--mode", "strikt"])
    assert result.exit_code == 2
    assert "strikt" in result.output and "strict" in result.output


def test_serve_caps_malloc_arenas_on_glibc_and_leaves_them_at_zero() -> None:
    from citegate.commands.serve_cmd import cap_malloc_arenas

    assert cap_malloc_arenas(0) is False  # 0: glibc's default stands
    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
        assert cap_malloc_arenas(2) is True


def test_a_folder_with_no_file_citegate_reads_says_what_it_holds(tmp_path: Path) -> None:
    """A folder of AsciiDoc said "nothing could be ingested: fix the files listed above" and
    listed nothing: the files were passed by before any was read."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.adoc").write_text("= Title\n\nKeys rotate every ninety days.\n")
    (docs / "b.adoc").write_text("= Other\n")
    (docs / "logo.png").write_bytes(b"\x89PNG")
    env = {"CITEGATE_DATA_DIR": str(tmp_path / "data")}
    done = CliRunner().invoke(app, ["ingest", str(docs), "--json"], env=env)
    assert done.exit_code == 2
    error = json.loads(done.stdout)
    assert error["error"] == "bad_input"
    assert "(it holds 2 .adoc files, 1 .png file)" in error["message"]
    assert "convert the documents" in error["message"] and ".md" in error["message"]
    for f in docs.iterdir():
        f.unlink()
    empty = CliRunner().invoke(app, ["ingest", str(docs), "--json"], env=env)
    assert empty.exit_code == 2 and "(it is empty)" in json.loads(empty.stdout)["message"]
