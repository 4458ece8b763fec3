"""Index identity and the index hash (SPEC 1.1, 2.3; seed 002 rule 6)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from server.core.contracts import IndexIdentity, IndexMeta
from server.core.errors import IndexMismatchError
from server.core.settings.ingest import IngestSettings

# v2: the dense vector embeds title > heading path + text; v3: setext headings (a one-line
# paragraph underlined with === or ---) open sections and name them; v4: a heading's title
# drops HTML tags and reads character entities (GitBook's `<a id="x"></a>` anchors).
CHUNKER_VERSION = "sections-v4"


def chunker_id(ingest: IngestSettings) -> str:
    """The chunker's identity recorded in the index: its version and every setting that
    moves a chunk boundary, so an index chunked otherwise is refused, never mixed."""
    return (
        f"{CHUNKER_VERSION};max_tokens={ingest.chunk_max_tokens};"
        f"overlap={ingest.chunk_overlap_sentences};heading_only={ingest.heading_only_max_chars}"
    )


REINGEST_HINT = "re-ingest with `citegate ingest --rebuild PATH...`"


def identity_hash(identity: IndexIdentity) -> str:
    """A short stable hash of what the index was built with."""
    raw = "|".join(
        (identity.embed_model, str(identity.dense_dim), identity.analyzer, identity.chunker)
    )
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def index_hash(identity: IndexIdentity, doc_revs: Iterable[tuple[str, str]]) -> str:
    """`<identity>:<content>`: changes with any document revision, embed model or analyzer.

    `doc_revs` are `(doc_id, rev)` pairs of the live documents, in any order.
    """
    content = hashlib.sha256()
    for doc_id, rev in sorted(doc_revs):
        content.update(f"{doc_id}\x00{rev}\n".encode())
    return f"{identity_hash(identity)}:{content.hexdigest()[:16]}"


def check_identity(meta: IndexMeta | None, expected: IndexIdentity) -> None:
    """Raise IndexMismatchError when the index was built with other models or analyzer."""
    if meta is None or meta.identity == expected:
        return
    got, want = meta.identity, expected
    diffs = [
        f"{name}: index has {getattr(got, name)!r}, this process uses {getattr(want, name)!r}"
        for name in ("embed_model", "dense_dim", "analyzer", "chunker")
        if getattr(got, name) != getattr(want, name)
    ]
    code = "analyzer_mismatch" if got.analyzer != want.analyzer else "mismatch_index_hash"
    raise IndexMismatchError(f"{code}: " + "; ".join(diffs) + f"; {REINGEST_HINT}")
