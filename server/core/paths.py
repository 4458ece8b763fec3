"""Where the repository and the shared data folder are: one resolver for every script.

The shared data folder (`../shared/data` beside a checkout: the public corpora and gold data
read by evals, bench and the `needs_data` tests) can be moved with `CITEGATE_SHARED_DATA`.
"""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    """The checkout: the folder that holds `server/`, `config/` and `evals/`."""
    return Path(__file__).resolve().parents[2]


def shared_data() -> Path:
    """`CITEGATE_SHARED_DATA`, else `shared/data` beside the checkout."""
    env = os.environ.get("CITEGATE_SHARED_DATA")
    return Path(env) if env else repo_root().parent / "shared" / "data"
