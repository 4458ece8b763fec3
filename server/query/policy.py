"""Corpus policy and caller scope, applied after recall and before rerank (SPEC 3.2, seed 003).

Pure: `apply_policy` never does I/O. Scope is pushed down into the store query by `recall`
and re-checked here, so a chunk outside the caller's scope is never returned or cited even
if a backend ignored the filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

import yaml
from pydantic import ValidationError

from server.core.contracts import Frozen, Hit
from server.core.errors import ConfigError


class CorpusPolicy(Frozen):
    """The documented keys of `config/corpus_policy.yaml`."""

    allowed_sources: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    denied_tags: tuple[str, ...] = ()
    max_age_days: int | None = None
    stale_action: Literal["demote", "annotate", "drop"] = "annotate"
    snippet_visible: bool = True


def load_policy(path: Path) -> CorpusPolicy:
    """Read the policy file; ConfigError naming the file and the bad key."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return CorpusPolicy.model_validate(data)
    except FileNotFoundError as exc:
        raise ConfigError(
            f"corpus policy {path} is missing; restore config/corpus_policy.yaml"
        ) from exc
    except (yaml.YAMLError, ValidationError) as exc:
        raise ConfigError(f"corpus policy {path} is invalid: {exc}") from exc


def _allowed(hit: Hit, policy: CorpusPolicy, scope_tags: Sequence[str] | None) -> bool:
    chunk = hit.chunk
    if scope_tags is not None and not set(chunk.tags) & set(scope_tags):
        return False
    if set(chunk.tags) & set(policy.denied_tags):
        return False
    if policy.allowed_sources and not chunk.source_url.startswith(policy.allowed_sources):
        return False
    return not policy.allowed_domains or chunk.source_domain in policy.allowed_domains


def apply_policy(
    hits: Sequence[Hit], policy: CorpusPolicy, *, scope_tags: Sequence[str] | None, now: datetime
) -> list[Hit]:
    """Drop what the policy or scope forbids; handle stale documents per `stale_action`.

    `demote` keeps stale hits after all fresh ones (each group in its original order);
    `annotate` keeps the order and marks `old_document`; `drop` removes them.
    """
    kept = [h for h in hits if _allowed(h, policy, scope_tags)]
    if policy.max_age_days is None:
        return kept
    cutoff = now - timedelta(days=policy.max_age_days)
    marked = [h.model_copy(update={"old_document": h.chunk.updated_at < cutoff}) for h in kept]
    if policy.stale_action == "drop":
        return [h for h in marked if not h.old_document]
    if policy.stale_action == "demote":
        return [h for h in marked if not h.old_document] + [h for h in marked if h.old_document]
    return marked
