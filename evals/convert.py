"""Turn public QA / claim sets into runnable gold sets (SPEC 7.1 format) plus a corpus folder.

    python -m evals.convert clapnq  --out runs/clapnq  [--limit 100] [--offset 0]
    python -m evals.convert scifact --out runs/scifact [--split dev] [--limit 100]
                                    [--distractors 300]

Writes `OUT/corpus/*.md` (one Markdown page per passage or abstract, `# Title` then the text)
and `OUT/gold.jsonl`; then `citegate eval OUT/gold.jsonl --corpus OUT/corpus` runs it.

- ClapNQ dev: answerable items cite their first selected supporting sentence; unanswerable
  items keep their passage in the corpus (on topic, but it does not answer), so they test
  refusal where retrieval alone cannot tell. `--offset/--limit` take a slice of each file, so
  one slice can tune and a disjoint one can report.
- SciFact claims: the claim is the question; claims with rationales (SUPPORT or CONTRADICT)
  are answerable and cite the first rationale sentence; claims without evidence (NEI) are
  unanswerable though their cited abstract is in the corpus. `--distractors` adds that many
  other abstracts (seeded) so retrieval has something to get wrong.

Every quote is checked verbatim against the written page (evals.gold.resolve); an item
whose quote is not found is dropped and counted, never silently kept.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.gold import GoldItem, GoldRef, resolve
from server.core.errors import InputError
from server.core.paths import shared_data

DATA = shared_data()


@dataclass(frozen=True)
class Page:
    path: str
    title: str
    text: str

    def markdown(self) -> str:
        return f"# {self.title}\n\n{self.text.strip()}\n"


def page_name(title: str, text: str) -> str:
    """A stable file name: slug of the title plus 8 hex of the content."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or "page"
    return f"{slug}-{hashlib.sha256(text.encode()).hexdigest()[:8]}.md"


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def clapnq_item(row: dict[str, Any], answerable: bool) -> tuple[Page, GoldItem]:
    passage = row["passages"][0]
    page = Page(page_name(passage["title"], passage["text"]), passage["title"], passage["text"])
    out = row["output"][0] if row["output"] else {}
    chosen = out.get("selected_sentences") or []
    gold = (
        [GoldRef(path=page.path, heading=page.title, quote=chosen[0].strip())]
        if answerable and chosen
        else []
    )
    item = GoldItem(
        id=f"clapnq-{row['id']}",
        question=row["input"],
        answerable=answerable and bool(gold),
        claim_types=["fact"] if gold else [],
        gold=gold,
        answer_facts=[out["answer"]] if answerable and out.get("answer") else [],
    )
    return page, item


def clapnq(data: Path, limit: int, offset: int) -> tuple[list[Page], list[GoldItem]]:
    pages, items = [], []
    for name, answerable in (("answerable", True), ("unanswerable", False)):
        rows = list(_jsonl(data / "clapnq" / f"clapnq_dev_{name}.jsonl"))[offset : offset + limit]
        for row in rows:
            page, item = clapnq_item(row, answerable)
            pages.append(page)
            items.append(item)
    return pages, items


def scifact_pages(data: Path) -> dict[int, Page]:
    pages = {}
    for d in _jsonl(data / "scifact" / "corpus_sentences.jsonl"):
        text = " ".join(s.strip() for s in d["abstract"])
        pages[int(d["doc_id"])] = Page(f"{d['doc_id']}.md", d["title"].strip(), text)
    return pages


def scifact_item(
    claim: dict[str, Any], sentences: dict[int, list[str]], pages: dict[int, Page]
) -> GoldItem:
    """Every rationale sentence of every evidence set is a gold quote: a citation of any of
    them cites the evidence (the first sentence of the first set alone was the gold, so a
    citation of "It was tested in 40 adults." under a two-sentence rationale was a miss)."""
    gold: list[GoldRef] = []
    labels = []
    for doc_id, sets in claim["evidence"].items():
        page, said = pages[int(doc_id)], sentences[int(doc_id)]
        for n in sorted({n for s in sets for n in s["sentences"]}):
            gold.append(GoldRef(path=page.path, heading=page.title, quote=said[n].strip()))
        labels.append(sets[0]["label"].lower())
    return GoldItem(
        id=f"scifact-{claim['id']}",
        question=claim["claim"],
        answerable=bool(gold),
        claim_types=["fact"] if gold else [],
        gold=gold,
        answer_facts=labels,
    )


def scifact(
    data: Path, split: str, limit: int, distractors: int
) -> tuple[list[Page], list[GoldItem]]:
    pages = scifact_pages(data)
    sentences = {
        int(d["doc_id"]): list(d["abstract"])
        for d in _jsonl(data / "scifact" / "corpus_sentences.jsonl")
    }
    claims = list(_jsonl(data / "scifact" / f"claims_{split}.jsonl"))[:limit]
    items = [scifact_item(c, sentences, pages) for c in claims]
    used = {int(d) for c in claims for d in c.get("cited_doc_ids", [])}
    used |= {int(d) for c in claims for d in c["evidence"]}
    others = sorted(set(pages) - used)
    used |= set(random.Random(0).sample(others, min(distractors, len(others))))
    return [pages[d] for d in sorted(used) if d in pages], items


def write(out: Path, pages: list[Page], items: list[GoldItem]) -> tuple[int, int]:
    """Write the corpus and the gold set; returns (kept, dropped) items."""
    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for page in pages:
        (corpus / page.path).write_text(page.markdown(), encoding="utf-8")
    kept = []
    for item in items:
        try:
            resolve(item, corpus)
        except InputError as exc:
            print(f"dropped {item.id}: {exc}")
            continue
        kept.append(item)
    lines = [json.dumps(i.model_dump(), ensure_ascii=False) for i in kept]
    (out / "gold.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(kept), len(items) - len(kept)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("source", choices=["clapnq", "scifact"])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=100, help="items per file (clapnq) or claims")
    ap.add_argument("--offset", type=int, default=0, help="clapnq: skip this many per file")
    ap.add_argument("--split", choices=["train", "dev"], default="dev", help="test has no labels")
    ap.add_argument("--distractors", type=int, default=300, help="scifact: extra abstracts")
    args = ap.parse_args(argv)
    if args.source == "clapnq":
        pages, items = clapnq(args.data, args.limit, args.offset)
    else:
        pages, items = scifact(args.data, args.split, args.limit, args.distractors)
    kept, dropped = write(args.out, pages, items)
    answerable = sum(i.answerable for i in items)
    print(
        f"{args.out}/gold.jsonl: {kept} items ({answerable} answerable before drops, "
        f"{dropped} dropped); {len(pages)} pages in {args.out}/corpus"
    )
    return 0 if kept else 1


if __name__ == "__main__":
    raise SystemExit(main())
