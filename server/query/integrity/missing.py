"""What an honest "I don't know" says about the source that would answer (SPEC 5.3, seed 000).

Built from what the question asks about, in its own words, the kind of statement it asks for
(a definition, a figure, a procedure, a reason, a fact) and the sections that came closest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from server.core.contracts import Hit, MissingEvidence
from server.core.text import terms as text_terms
from server.query.answer_types import kind_name

_NEAREST = 3
_KINDS = (
    (
        re.compile(r"^\s*(?:what|who)\s+(?:is|are)\b|\bdefin|\bmeaning of\b", re.I),
        "a glossary or reference page that defines {topic}",
    ),
    (
        re.compile(
            r"\bhow (?:many|much|long|often|big|large)\b|\bwhat (?:is the )?(?:number|"
            r"limit|size|rate|percentage|version)\b|\bwhen\b",
            re.I,
        ),
        "a versioned reference, changelog or specification that states the figure for {topic}, "
        "with its date, version or environment",
    ),
    (
        re.compile(r"^\s*how (?:do|to|can|should)\b|\bsteps?\b|\bconfigure\b|\bset up\b", re.I),
        "a how-to guide or tutorial that walks through {topic}",
    ),
    (
        re.compile(r"^\s*why\b|\breason\b", re.I),
        "a design note, rationale or explanation page about {topic}",
    ),
)


# The words that make a sentence a question: a wh-word with its auxiliaries ("What's the",
# "How do I", "How many"), or an auxiliary that opens a yes/no question ("Does", "Can I").
_OPENING = re.compile(
    r"^\s*(?:(?:what|which|who|whom|whose|where|when|why|how)(?:['’]s)?"
    r"(?:\s+(?:is|are|was|were|does|do|did|can|could|should|would|will|much|many|long|often))*"
    r"|(?:can|could|does|do|did|is|are|was|were|will|would|should|may|must)\b)"
    r"(?:\s+(?:i|we|you|one|the|a|an))?\b[\s,]*",
    re.I,
)
_PHRASE_CHARS = 120  # the longest phrase quoted back, in characters (our choice)


def asked_phrase(question: str) -> str:
    """What the question asks about, in its own words and quoted: the question less the
    words that make it one ("What's the maximum number of background tasks I can attach to a
    single request?" -> “maximum number of background tasks I can attach to a single
    request”), cut at a word past `_PHRASE_CHARS`. Read back to the user, it names the topic
    as asked; the key terms (`query_terms`) read as a bag ("maximum number background
    tasks")."""
    whole = " ".join(question.split()).rstrip(" ?!.")
    core = _OPENING.sub("", whole, count=1) or whole
    if len(core) > _PHRASE_CHARS:
        core = core[:_PHRASE_CHARS].rsplit(" ", 1)[0] + " …"
    return f"“{core}”" if core else "this question"


def source_kind(question: str, topic: str) -> str:
    """The kind of document that would answer `question` (first matching pattern wins)."""
    for pattern, kind in _KINDS:
        if pattern.search(question):
            return kind.format(topic=topic)
    return f"a document that states the facts about {topic} directly"


def missing_evidence(
    question: str,
    hits: Sequence[Hit],
    absent_names: Sequence[str] = (),
    unstated: Sequence[str] = (),
) -> MissingEvidence:
    """Name the topic (the question's own phrase, `asked_phrase`) and the nearest sections
    that fell short.

    `absent_names`: names the question uses that no readable passage mentions (the refusal
    rule `server.query.rerank.absent_names`); they lead the summary and are the topic.
    `unstated`: the kinds of value the question asks for that no evidence found states (the
    answer-type rule, `Decision.unstated`); the summary and the source say which value is
    missing ("a document that states the price for “Basecamp Big cost per month”"), not only
    the topic.
    """
    terms = tuple(dict.fromkeys(text_terms(question)))[:8]
    topic = asked_phrase(question)
    if absent_names:
        topic = " and ".join(absent_names)
    kinds = " and the ".join(dict.fromkeys(kind_name(k) for k in unstated))
    nearest = tuple(
        f"{h.chunk.source_url}#{h.chunk.section_id} (nearest match, not sufficient)"
        for h in hits[:_NEAREST]
    )
    closest = f" The closest indexed sections fell short: {', '.join(nearest)}." if nearest else ""
    lead = (
        f"No indexed passage you may read mentions {topic}."
        if absent_names
        else f"No indexed passage states the {kinds} asked for {topic}."
        if kinds
        else f"No indexed passage supports an answer about {topic}."
    )
    kind = (
        f"a document that states the {kinds} for {topic}"
        if kinds and not absent_names
        else source_kind(question, topic)
    )
    summary = (
        f"{lead} What would answer it: {kind}.{closest} Ingest such a source with "
        "`citegate ingest PATH` and ask again."
    )
    return MissingEvidence(summary=summary, suggested_sources=(kind, *nearest), query_terms=terms)
