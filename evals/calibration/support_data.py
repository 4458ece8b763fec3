"""(claim, evidence, label) pairs from the attribution data sets in `../shared/data`.

label 1: the evidence supports the claim; 0: it does not. Each reader documents how its
evidence is built, since that decides what the support scorer is asked.
"""

from __future__ import annotations

import csv
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

from server.core.text import content_words

Pair = tuple[str, str, int]


def best_sentences(claim: str, sentences: list[str], k: int = 2) -> str:
    """The `k` sentences sharing most content words with the claim, in document order."""
    cw = set(content_words(claim))
    ranked = sorted(
        range(len(sentences)), key=lambda i: -len(cw & set(content_words(sentences[i])))
    )
    return " ".join(sentences[i] for i in sorted(ranked[:k]))


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def wice(path: Path) -> Iterator[Pair]:
    """Supported: the annotated supporting sentences; not supported: the 2 closest sentences."""
    return (pair for pair, _ in _wice(path))


_WICE_TITLE = "(meta data) TITLE:"


def _wice(path: Path) -> Iterator[tuple[Pair, str]]:
    """`wice`'s pairs, each with the title of the cited page (its first evidence line)."""
    for line in _lines(path):
        item = json.loads(line)
        ev = item["evidence"]
        title = ev[0].removeprefix(_WICE_TITLE).strip() if ev[0].startswith(_WICE_TITLE) else ""
        if item["label"] == "supported":
            idx = sorted({i for ann in item["supporting_sentences"] for i in ann})
            yield (item["claim"], " ".join(ev[i] for i in idx if i < len(ev)), 1), title
        elif item["label"] == "not_supported":
            yield (item["claim"], best_sentences(item["claim"], ev), 0), title


def scifact(claims: Path, corpus: Path) -> Iterator[Pair]:
    """SUPPORT rationales: 1; CONTRADICT rationales, NEI (2 closest sentences of a cited doc): 0."""
    return (pair for pair, _ in _scifact(claims, corpus))


def _scifact(claims: Path, corpus: Path) -> Iterator[tuple[Pair, str]]:
    """`scifact`'s pairs, each with the title of the abstract its evidence comes from."""
    docs, titles = {}, {}
    for line in _lines(corpus):
        d = json.loads(line)
        docs[str(d["doc_id"])] = d["abstract"]
        titles[str(d["doc_id"])] = str(d.get("title") or "")
    for line in _lines(claims):
        item = json.loads(line)
        for doc_id, sets in item.get("evidence", {}).items():
            for ev in sets:
                text = " ".join(docs[doc_id][i] for i in ev["sentences"])
                yield (item["claim"], text, 1 if ev["label"] == "SUPPORT" else 0), titles[doc_id]
        if not item.get("evidence") and item.get("cited_doc_ids"):
            doc_id = str(item["cited_doc_ids"][0])
            if doc := docs.get(doc_id):
                yield (item["claim"], best_sentences(item["claim"], doc), 0), titles[doc_id]


def evidence_titles(d: Path) -> dict[tuple[str, str], str]:
    """The title of the document each WiCE and SciFact pair's evidence comes from, keyed by
    (claim, evidence) as the readers build them (HaluEval's knowledge and BEGIN's snippets
    carry none). The gate reads a chunk's title with its span: a name the title holds is no
    foreign name (`coverage.foreign_names`), so a judge of single pairs needs it too."""
    rows = [
        *_wice(d / "wice/claim/dev.jsonl"),
        *_wice(d / "wice/claim/test.jsonl"),
        *_scifact(d / "scifact/claims_train.jsonl", d / "scifact/corpus_sentences.jsonl"),
        *_scifact(d / "scifact/claims_dev.jsonl", d / "scifact/corpus_sentences.jsonl"),
    ]
    return {(c, e): title for (c, e, _), title in rows if title}


def halueval(path: Path, lo: int, hi: int) -> Iterator[Pair]:
    """'question: right answer' vs the knowledge: 1; 'question: hallucinated answer': 0."""
    for line in _lines(path)[lo:hi]:
        item = json.loads(line)
        q = re.sub(r"\?$", "", item["question"])
        yield f"{q}: {item['right_answer']}", item["knowledge"], 1
        yield f"{q}: {item['hallucinated_answer']}", item["knowledge"], 0


def begin(path: Path) -> Iterator[Pair]:
    """The response vs its knowledge snippet: 'Fully attributable' 1, 'Not fully' 0."""
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            label = row["begin_label"]
            if label in ("Fully attributable", "Not fully attributable"):
                yield row["response"], row["knowledge"], int(label == "Fully attributable")


def sample(pairs: Iterator[Pair], n: int, seed: int = 0) -> list[Pair]:
    """At most `n` pairs, shuffled with a fixed seed (pairs with empty text dropped)."""
    items = [p for p in pairs if p[0].strip() and p[1].strip()]
    random.Random(seed).shuffle(items)
    return items[:n]
