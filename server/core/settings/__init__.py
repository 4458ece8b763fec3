"""One Settings object, built once by `load_settings()` and passed explicitly.

Defaults live in YAML files under `config/defaults/` (one file per group, the
top-level keys in `citegate.yaml`), each with its unit and origin in a comment.
Precedence, highest first: keyword overrides, `CITEGATE_*` environment variables
(`CITEGATE_RETRIEVAL__RRF_K=60` for nested keys), the YAML files. Importing this
module reads nothing.
"""

from __future__ import annotations

from server.core.settings.loader import Settings, default_config_dir, load_settings

__all__ = ["Settings", "default_config_dir", "load_settings"]
