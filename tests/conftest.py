"""Shared fixtures. The default tier is offline: pytest-socket blocks every non-loopback host."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.core import paths
from server.core.settings import Settings, load_settings
from tests.fakes import HashEmbedder

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# exported ONNX graphs (models.runtime: onnx) go to a temp folder, never the user's cache
os.environ.setdefault(
    "CITEGATE_MODELS__ONNX_DIR", str(Path(tempfile.gettempdir()) / "citegate-test-onnx")
)

DATA = paths.shared_data()
SHARED = DATA.parent


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings from the shipped YAML, writing under a temporary data folder."""
    return load_settings(data_dir=tmp_path / "data")


@pytest.fixture
def embedder() -> HashEmbedder:
    """A fake embedder that discriminates between texts (hashed bag of words)."""
    return HashEmbedder()


@pytest.fixture
def shared_data() -> Iterator[Path]:
    """`../shared/data`, or skip when this checkout has no shared folder beside it."""
    if not DATA.is_dir():
        pytest.skip("../shared/data is not beside this checkout")
    yield DATA


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`needs_data` on every test that reads the shared data folder (through the fixture),
    so `-m "not needs_data"` selects what runs on a checkout without it."""
    for item in items:
        if "shared_data" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.needs_data)
