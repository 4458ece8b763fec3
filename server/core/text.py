"""Small pure text helpers shared by generation and the checker (no I/O, no models)."""

from __future__ import annotations

import builtins
import hashlib
import html
import re
import sys
from collections.abc import Iterable
from functools import lru_cache

from server.core import markdown

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*|\d+(?:[.,]\d+)*%?")
_STOPWORDS = (
    "a an the of to in on for and or but is are was were be been being it its this that "
    "these those with as by at from into about than then so such can could should would "
    "will shall may might must do does did done has have had not no yes you your we our "
    "they their there here what which who whom whose when where why how if else also only "
    "just more most very any all each other some one i me my he she him her them us use "
    "used using "
)
STOP = frozenset(_STOPWORDS.split())
_OWNER = re.compile(r"'s?$")
_SIBILANT_PLURAL = ("sses", "xes", "shes", "tches", "rches", "nches", "zzes")


def terms(text: str) -> list[str]:
    """Lowercased words minus stopwords and their possessive ending ("GitHub's" -> "github",
    "supporters'" -> "supporters"), as written otherwise: the words a query or a message may
    show. Compare them by `word_key`."""
    words = (_OWNER.sub("", w) for w in _WORD.findall(text.lower()))
    return [w for w in words if w not in STOP and len(w) >= 2]


def word_key(word: str) -> str:
    """The key two forms of a word share, a crude stem (no word list), for a word of more
    than four letters: a plural "s" goes ("middlewares" -> "middleware"), and "es" after a
    sibilant ("addresses" -> "address", "indexes" -> "index", "hashes" -> "hash", "batches"
    -> "batch"); a final "y", "ie" or "ies" reads "i" ("policy" and "policies" -> "polici",
    "cookie" and "cookies" -> "cooki"). Shorter words stay as they are ("uses", "keys")."""
    if len(word) <= 4:
        return word
    if word.endswith((*_SIBILANT_PLURAL, "ies")):
        return word[:-2]
    if word.endswith("ie"):
        return word[:-1]
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "i"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> list[str]:
    """The keys (`word_key`) of the text's `terms`: what overlaps between texts are counted
    on, never shown."""
    return [word_key(w) for w in terms(text)]


HEADING_SEPARATOR = " > "


def embed_context(title: str, heading: str) -> str:
    """Where a chunk stands: its document title, then its heading path. The title is left out
    when the outermost heading repeats it (a page's `# Title` line) or when it has no letter
    (a file named by a number says nothing about its text)."""
    parts = [p for p in heading.split(HEADING_SEPARATOR) if p] if heading else []
    named = any(ch.isalpha() for ch in title)
    if named and not (parts and parts[0].strip().lower() == title.strip().lower()):
        parts.insert(0, title)
    return HEADING_SEPARATOR.join(parts)


def embed_input(title: str, heading: str, text: str) -> str:
    """What ingest embeds for a chunk: its context line, a blank line, its text. A sentence
    under "Pin your `fastapi` version" is found by a question about pinning even when it
    never says so itself (a contextual chunk header; the cited span is the text alone)."""
    context = embed_context(title, heading)
    return f"{context}\n\n{text}" if context else text


def embed_key(title: str, heading: str, content_hash: str) -> str:
    """The identity of an embedded input: a chunk keeps its vector on re-ingest only when its
    text, its document title and its heading path are all unchanged."""
    raw = f"{title}\x00{heading}\x00{content_hash}"
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


# An HTML comment: a linter's switch ("<!-- markdownlint-disable GHD034 -->") or an editor's
# note, never shown to a reader.
HTML_COMMENT = re.compile(r"<!--[\s\S]*?-->")
# An HTML phrasing element's opening or closing tag, read as its text: the FastAPI docs mark
# glossary terms `<dfn title="obsolete, recommended not to use it">deprecated</dfn>` and
# `<abbr title="Mozilla Developer Network">MDN</abbr>` inside prose. Only these names, so a
# placeholder such as `<token>` outside code is kept.
INLINE_TAG = re.compile(
    r"</?(?:a|abbr|b|cite|del|dfn|em|i|ins|kbd|mark|q|s|small|span|strong|sub|sup|u)"
    r"(?:\s[^<>]*)?>",
    re.IGNORECASE,
)


_RUN_WORD = re.compile(r"\w+")
# words a quote needs to be found by them alone (our choice: fewer words match by chance)
MIN_RUN_WORDS = 4


def word_run(quote: str, text: str) -> tuple[int, int] | None:
    """Where `text` says the words of `quote` in order with only non-word characters between
    (line breaks, Markdown emphasis, other quotation marks): the same sentence in a PDF's
    text and in the Markdown page it was made from. None when not found or the quote has
    fewer than `MIN_RUN_WORDS` words."""
    words = _RUN_WORD.findall(quote)
    if len(words) < MIN_RUN_WORDS:
        return None
    found = re.search(r"\W+".join(re.escape(w) for w in words), text)
    return found.span() if found else None


def display(text: str) -> str:
    """Markdown emphasis, link syntax (inline and reference links), HTML comments, line
    breaks (`<br>`), inline HTML tags (`INLINE_TAG`) and template tags (`{{% note %}}`)
    removed for reading ("*Your Counter
    Notice Will Be Published.* <!-- markdownlint-disable-line emphasis-style --> As noted
    ..."); never used as a quote."""
    text = HTML_COMMENT.sub(" ", text)
    text = re.sub(r"\\\n", "\n", text)  # a hard line break written as a backslash (GitBook)
    # MDX: a string written as a JSX expression ("(2G, {'<='} 70Kbps)", "and{' '}") is its
    # text, and inline `<code>x</code>` is code
    text = re.sub(r"\{\s*(['\"])([^'\"{}]*)\1\s*\}", r"\2", text)
    text = re.sub(r"<code>([^<`]*)</code>", r"`\1`", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    # emphasis markers outside code spans (`__init__.py` is code): `**x**` anywhere,
    # `__x__` only between non-word characters (CommonMark: snake__case__ is no emphasis)
    spans = [m.group(0) for m in CODE_SPAN.finditer(text)]
    text = CODE_SPAN.sub("\x00", text)
    text = re.sub(rf"\s*(?:{markdown.TEMPLATE_TAG.pattern})", "", text)  # `{{% note %}}`: layout
    # a reference link ("[`model_dump()`][pydantic.main.BaseModel.model_dump]", mkdocstrings)
    # is its text; read outside code spans, where `row[0][1]` is code
    text = re.sub(r"\[([^\]]+)\]\[[^\]\s]*\]", r"\1", text)
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.I)  # a line break inside a cell or item
    text = INLINE_TAG.sub("", text)  # `<dfn title="...">deprecated</dfn>`: its text
    text = re.sub(r"\*\*(.+?)\*\*|(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)", r"\1\2", text)
    # the other half of a strong span split between sentences ("... limited to $500.**");
    # a leading "__" before a word is a name (a cookie `__ssid` in a table cell), not a half
    text = re.sub(r"^\s*(?:\*\*|__(?!\w))(?=\S)|(?<=\S)(?:\*\*|(?<!\w)__)\s*$", "", text)
    text = re.sub(r"\{\s*#[\w-]+\s*\}", "", text)
    text = html.unescape(text)  # `&#x20;`, `&amp;`: entities outside code spans
    for span in spans:
        text = text.replace("\x00", span, 1)
    return " ".join(text.split())


# An inline code span (CommonMark: a run of backticks closed by a run of the same length).
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


_TOKEN = re.compile(r"[\w][\w+#.'’-]*")
_POSSESSIVE = re.compile(r"['’]s$")


def named_terms(question: str) -> tuple[str, ...]:
    """Names the question uses: runs of capitalised words that do not open a sentence
    ("Henri Leconte", "GitLab"), in order, each once.

    Possessives are stripped ("GitLab's" -> "GitLab"). Skipped, and ending a run:
    contractions ("I'll"), "I" and other stopwords, words of chat ("OK", "FYI"), words that
    start lowercase ("iPSC"),
    words with a digit (gene and version symbols such as "A2", "OAuth2": too often spelt
    differently in the evidence) and abbreviations the question defines itself ("blood
    pressure (DBP)"), likenesses ("a Next.js-style app", "an OpenAI-compatible
    endpoint": the question asks about the app, and the name only says what it is like) and
    a version's codename after its number ("macOS 12 Monterey": documents name the number).
    Lowercase questions name nothing, so the refusal rule built on this (`missing_names`)
    never fires on them.
    """
    names: list[str] = []
    run: list[str] = []
    opener = True
    codename = False  # in a version's codename ("Jammy Jellyfish" after "Ubuntu 22.04")
    for m in _TOKEN.finditer(question):
        raw = m.group()
        follows = codename and question[m.start() - 1 : m.start()] == " "
        before = max(0, m.start() - _CODENAME_REACH)
        codename = raw[0].isupper() and (
            follows or _CODENAME.search(question, before, m.start()) is not None
        )
        bare = raw.rstrip(".'’-")
        word = _POSSESSIVE.sub("", bare)
        starts_sentence = opener
        opener = raw.endswith(".") or question[m.end() : m.end() + 1] in ("?", "!", ":")
        named = not (
            starts_sentence
            or not word[0].isupper()
            or any(c.isdigit() for c in word)
            or _defined(word, question)
            or "'" in word
            or "’" in word
            or word.lower() in STOP
            or word.lower() in _CHAT
            or _LIKENESS.search(word) is not None
            or codename
        )
        if named:
            run.append(word)
        ends = word != bare or question[m.end() : m.end() + 1] in ",?!:;"
        if run and (not named or ends):  # a possessive or a comma ends a name
            names.append(" ".join(run))
            run = []
    if run:
        names.append(" ".join(run))
    return tuple(dict.fromkeys(names))


_ACRONYM = re.compile(r"[A-Z]{2,6}s?")
# Capitalised words of chat that name nothing ("Is it OK to ...?", "FYI", "ASAP").
_CHAT = frozenset(["ok", "okay", "fyi", "asap", "btw", "imo", "imho", "tldr"])
# A version number; a capitalised word right after "<word> <version>" is that version's
# codename ("macOS 12 Monterey", "Debian 12 Bookworm"), which a corpus names by its number.
_CODENAME = re.compile(r"[A-Za-z][\w.+-]* v?\d+(?:\.\d+)* $")
_CODENAME_REACH = 80  # characters before a word where "<word> <version> " is looked for
# A name made into a likeness: "Next.js-style", "OpenAI-compatible", "Flask-like".
_LIKENESS = re.compile(r"-(?:style|like|compatible|inspired|esque|flavou?red)$", re.I)
_DEFINING_WORDS = 5  # words before "(ABBR)" whose initials may spell it (our choice)


def _defined(word: str, question: str) -> bool:
    """An abbreviation the question defines itself: "(DBP)" after "diastolic blood pressure",
    its first letter the initial of one of the few words before the bracket. A name in
    brackets that abbreviates nothing before it ("HTTP/3 (QUIC)") is a name."""
    at = question.find(f"({word})")
    if at < 0:
        return False
    before = re.findall(r"[A-Za-z][\w'’-]*", question[:at])[-_DEFINING_WORDS:]
    return any(w[0].lower() == word[0].lower() for w in before)


def _stem(word: str) -> str:
    low = word.lower()
    return low[: max(4, len(low) - 2)] if len(low) > 4 else low.removesuffix("s") or low


def mentions(name: str, text: str, whole: bool = False) -> bool:
    """Whether `text` mentions the name (any of its words; every one if `whole`),
    case-insensitively.

    A word is mentioned when each capitalised part of it ("HIV-positive" -> "HIV") starts a
    word of the text, as its stem: the last two letters of a long part are dropped
    ("Korean" finds "Korea"), the plural "s" of a short one ("GPUs" finds "GPU"), four
    letters kept at least. An acronym of three letters or more also matches the words it
    abbreviates ("VSMCs" finds "vascular smooth muscle cells"), and one in capitals its
    dotted form ("UK" finds "U.K.").
    """
    found = (all(_pattern(p).search(text) for p in _parts(w)) for w in name.split())
    return all(found) if whole else any(found)


def _parts(word: str) -> list[str]:
    return [p for p in word.split("-") if p[:1].isupper()] or [word]


@lru_cache(maxsize=1024)
def _pattern(part: str) -> re.Pattern[str]:
    """The stem at a word start, or, for an acronym, its letters starting consecutive words.
    An acronym of three letters or more ends where a lower-case letter would go on ("QUIC"
    is not the start of "Quickstart", "GPU" not of "gpuless"); a capital may go on ("CORS"
    in "CORSMiddleware")."""
    letters = part.removesuffix("s") if part.endswith("s") and len(part) > 3 else part
    # of three letters or more, whole, never cut to a stem ("HTTPS" is no "HTTP"); two
    # letters start a word as a stem does ("UN" finds "United Nations")
    acronym = _ACRONYM.fullmatch(part) is not None and len(letters) >= 3
    forms = [re.escape(letters) + r"s?(?-i:(?![a-z]))" if acronym else re.escape(_stem(part))]
    if acronym:  # two initials match too much ("GB")
        forms.append(r"[\s-]+".join(re.escape(c) + r"[\w']*" for c in letters))
    if part.isalpha() and part.isupper() and len(part) > 1:  # "UK" finds "U.K."
        forms.append(r"\.".join(re.escape(c) for c in part) + r"\.")
    return re.compile(r"(?<![\w])(?:" + "|".join(forms) + ")", re.I)


_ASKING_WORDS = (
    "what which who whom whose when where why how is are was were do does did can could "
    "should would will may might must has have had name list tell give explain describe"
)
_ASKING = frozenset(_ASKING_WORDS.split())


def is_question(text: str) -> bool:
    """Ends with "?" or opens with a question word, an auxiliary ("Does X ...") or a
    request ("Name the ...")."""
    words = text.split()
    return text.rstrip().endswith("?") or (bool(words) and words[0].lower() in _ASKING)


# A name most candidates mention is the corpus's subject (our choice; a pool of at least
# `SUBJECT_MIN_TEXTS`, so that one or two passages never make every name they hold a subject).
SUBJECT_SHARE = 0.5
SUBJECT_MIN_TEXTS = 5
# From this many texts (a recall pool: 60 candidates in the answer path), a name is mentioned
# only by a text with every word of it: no candidate holding "Prisma" says the corpus is not
# about "Prisma Client Python", though "Python" and "client" are everywhere. With a few texts
# (HaluEval-QA's own knowledge, one snippet) any word still counts: a bridge name the snippet
# shortens ("Collins" for "Edwyn Collins") is no evidence of absence there. Measured over the
# dev gold sets' recall pools (all-MiniLM-L6-v2): unanswerable refused by the name rule
# FastAPI 9 -> 12 of 32, site policy 5 -> 6 of 32, ClapNQ held-out half 0 -> 0 of 151,
# their paraphrases 4 -> 5 and 7 -> 8 of 96; answerable refused unchanged: 0 of 73, 55, 149,
# paraphrases 0 of 219 and 1 of 165 (HaluEval-QA, one snippet each: 67 of 500 either way).
# Our choice of 20, not fitted.
WHOLE_NAME_POOL = 20


# Right after ".", "!" or "?" that ends a sentence, not an abbreviation: an initial ("U.S.
# law enforcement"), "e.g.", "i.e.", "etc.", "vs." ("a where() filter, e.g. with
# func.count()?" is one sentence). Evidence units cut their sentences here too.
SENTENCE_STOP = r"(?<=[.!?])(?<!\b[A-Za-z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)"
_SENTENCE_CUT = re.compile(SENTENCE_STOP + r"\s+")


def sentences(text: str) -> list[str]:
    """`text` cut at its sentence ends (`_SENTENCE_CUT`), empty parts left out."""
    return [p for p in _SENTENCE_CUT.split(text.strip()) if p]


def asking_sentences(question: str) -> str:
    """The sentences of `question` that ask (end in "?"), when it has several sentences and
    at least one asks ("I live in Germany. Which company is responsible for my data?" ->
    "Which company is responsible for my data?"); else the whole question. The others set
    the scene."""
    parts = sentences(question)
    asking = [p for p in parts if p.rstrip().endswith("?")]
    return " ".join(asking) if len(parts) > 1 and asking else question


def missing_names(question: str, texts: Iterable[str], share: float) -> tuple[str, ...]:
    """The question's names that none of `texts` mentions, when they are at least `share`
    of its names (else none: one unknown name among several is often just context).

    Only questions: a statement to check (a SciFact claim) names things in its writer's own
    spelling ("AlphaBeta" for the abstract's "Aβ"), so there a missing name is no evidence
    that the corpus is silent; the score rule and the checker judge statements.
    """
    # a name only in a sentence that sets the scene ("I'm browsing from Italy. Do you ...?")
    # is the asker's situation, not what the corpus must be about
    asked = asking_sentences(question)
    names = tuple(n for n in named_terms(question) if n in asked) if is_question(question) else ()
    if not names:
        return ()
    pool = list(texts)
    whole = len(pool) >= WHOLE_NAME_POOL
    absent = tuple(n for n in names if not any(mentions(n, t, whole) for t in pool))
    # A name offered as one of several ("pasting what ChatGPT or Copilot wrote") is not
    # missing when an alternative it is offered with is found: the question is about either.
    found = set(names) - set(absent)
    offered = alternatives(question)
    absent = tuple(n for n in absent if not any(n in run and run & found for run in offered))
    if not absent:
        return ()
    # The corpus's own subject ("FastAPI" in FastAPI's docs: in half the candidates or more)
    # says nothing about what is asked, so it does not dilute the names that are missing.
    subject = (
        [
            n
            for n in names
            if n not in absent and sum(mentions(n, t) for t in pool) >= SUBJECT_SHARE * len(pool)
        ]
        if len(pool) >= SUBJECT_MIN_TEXTS
        else []
    )
    return absent if len(absent) >= share * (len(names) - len(subject)) else ()


# Between two names offered as alternatives: "or", a comma, or both ("A, B or C").
_OR_BETWEEN = re.compile(r"\s*(?:,\s*(?:or\s+)?|or\s+)", re.IGNORECASE)
# A question that compares its names ("Who won more titles, A or B?", "Is A or B taller?")
# needs each of them, so they are no alternatives. English comparatives, our list.
_COMPARES = re.compile(
    r"\b(?:more|less|fewer|most|least|first|earlier|later|older|younger|newer|taller|shorter|"
    r"larger|smaller|bigger|longer|higher|lower|better|worse|best|worst|faster|slower|"
    r"\w+er\s+than|which\s+(?:one|of)|difference|compare[sd]?|versus|vs)\b",
    re.IGNORECASE,
)


def alternatives(question: str) -> list[frozenset[str]]:
    """The runs of names the question offers as alternatives: "A or B", "A, B or C"
    (`named_terms`; possessives and case as the question writes them). None when the
    question compares its names (`_COMPARES`), and a run joined by commas alone is a list,
    not alternatives."""
    if _COMPARES.search(question):
        return []
    at = sorted((i, n) for n in named_terms(question) if (i := question.find(n)) >= 0)
    runs: list[tuple[list[str], bool]] = []  # the names, and whether an "or" joins them
    end = 0
    for i, n in at:
        gap = question[end:i]
        if runs and _OR_BETWEEN.fullmatch(gap):
            names, joined_by_or = runs[-1]
            names.append(n)
            runs[-1] = (names, joined_by_or or re.search(r"\bor\b", gap, re.I) is not None)
        else:
            runs.append(([n], False))
        end = i + len(n)
    return [frozenset(names) for names, joined_by_or in runs if joined_by_or]


# A code identifier written the way only code writes it: a snake_case name
# (`auto_envvar_prefix`), a dunder name (`__tablename__`) or a long command-line flag
# (`--log-level`). Not after a dot: `self.x_y` is the asker's own object.
_IDENTIFIER = re.compile(
    r"(?<![\w.-])(?:--[a-z][a-z0-9-]+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|__[a-z][a-z0-9_]*__)(?![\w-])"
)
# A call written with its parentheses, `name()` or `obj.name()`: the function or method
# `name` (lower case: a class's name is a name, `named_terms`). Read as `name(`, the way
# code calls it; the object before the dot is the asker's variable and is not looked for.
_CALL = re.compile(r"(?<![\w-])((?:[A-Za-z_]\w*\.)*)([a-z_][a-z0-9_]*)\(\)")
# Python's own functions called bare (`len()`, `print()`, `open()`; not a method such as
# `session.exec()`), and its standard library's (`asyncio.create_task()`): the language's,
# not the corpus's to document ("... a generator, so it has no len(). How does the bar know
# the total?").
_BUILTINS = frozenset(n for n in dir(builtins) if n.islower() and not n.startswith("_"))


def _pythons(obj: str, name: str) -> bool:
    """A call of Python's own: a builtin called bare (`len()`), or a function of a standard
    library module (`asyncio.create_task()`, `secrets.compare_digest()`)."""
    if not obj:
        return name in _BUILTINS
    return obj.split(".", 1)[0] in sys.stdlib_module_names


def missing_identifiers(question: str, texts: Iterable[str]) -> tuple[str, ...]:
    """The code identifiers the question names (`_IDENTIFIER`) and the functions it calls
    (`_CALL`, looked for as `name(`) that none of `texts` holds, in any case: a setting, flag or
    method the corpus never writes is one it does not document ("Is there a
    `session.add_all()` call ...?" of docs that never call `add_all`). Questions only, as
    for `missing_names`."""
    if not is_question(question):
        return ()
    # shown as asked ("add_all()"), looked for as code writes it ("add_all(")
    asked = {i: i for i in _IDENTIFIER.findall(question)}
    calls = _CALL.findall(question)  # (the object before the dot, the name)
    asked |= {f"{m}()": f"{m}(" for obj, m in calls if not _pythons(obj, m)}
    if not asked:
        return ()
    pool = [t.lower() for t in texts]
    return tuple(i for i, probe in asked.items() if not any(probe.lower() in t for t in pool))
