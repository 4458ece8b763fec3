"""Argument handling that needs no index or model."""

from __future__ import annotations

from typer.testing import CliRunner

from citegate.cli import app


def test_a_misspelt_gate_mode_is_an_error_not_the_lenient_gate() -> None:
    result = CliRunner().invoke(app, ["ask", "What is X?", "--mode", "strikt"])
    assert result.exit_code == 2
    assert "strikt" in result.output and "strict" in result.output
