"""Argument handling that needs no index or model."""

from __future__ import annotations

import platform
import sys

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
