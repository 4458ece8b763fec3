"""The read-side truth citations are checked against (seed 002 rules 4, 6, 7)."""

from __future__ import annotations

from collections.abc import Mapping

from server.core.contracts import Frozen, IndexMeta
from server.core.identity import index_hash


def identity_part(index_hash: str) -> str:
    """The models-and-analyzer half of `server.core.identity.index_hash` (`<identity>:<content>`).

    The content half changes with every ingest of any document, so a chunk written before a
    later ingest legitimately carries an older one; its revision is checked by `rev` instead.
    """
    return index_hash.split(":", 1)[0]


class LiveIndex(Frozen):
    """The live index hash, analyzer, embedding model and each document's live revision."""

    index_hash: str
    analyzer: str
    embed_model: str
    revs: dict[str, str]

    @classmethod
    def from_store(cls, meta: IndexMeta, revs: Mapping[str, str]) -> LiveIndex:
        """From the index meta and the store's `live_revs()` (doc_id -> rev; no document text).

        The hash is computed from `revs` (as ingest's `refresh_meta` does), not read from
        `meta`: ingest switches a revision before it rewrites the recorded hash, and a reader
        in between would pair the old hash with the new revision."""
        return cls(
            index_hash=index_hash(meta.identity, revs.items()),
            analyzer=meta.identity.analyzer,
            embed_model=meta.identity.embed_model,
            revs=dict(revs),
        )
