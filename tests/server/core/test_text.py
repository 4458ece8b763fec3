"""Names a question uses and whether a passage mentions them (the name refusal rule)."""

from __future__ import annotations

import pytest

from server.core.text import (
    WHOLE_NAME_POOL,
    alternatives,
    asking_sentences,
    content_words,
    display,
    embed_context,
    embed_input,
    embed_key,
    is_question,
    mentions,
    missing_identifiers,
    missing_names,
    named_terms,
    terms,
    word_key,
    word_run,
)


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How does GitLab handle DMCA counter notices?", ("GitLab", "DMCA")),
        ("What is GitLab's DMCA process?", ("GitLab", "DMCA")),  # a possessive ends a name
        (
            "Who won more titles, Henri Leconte or Jonathan Stark?",
            ("Henri Leconte", "Jonathan Stark"),
        ),
        ("Can I keep a username for a project I'll start?", ()),  # "I", "I'll": not names
        ("Does a 2FA-locked or OAuth2 account differ?", ()),  # digits: version/gene symbols
        ("Does diastolic blood pressure (DBP) matter?", ()),  # defined by the question
        (
            "How do I enable Cross-Origin Resource Sharing (CORS)?",
            ("Cross-Origin Resource Sharing",),
        ),
        ("How do I enable HTTP/3 (QUIC) here?", ("HTTP", "QUIC")),  # abbreviates nothing before
        ("Is iPSC culture stable?", ()),  # starts lowercase
        ("how do i enable cors", ()),  # lowercase questions name nothing
        ("Which? Canberra is it.", ()),  # a word opening a sentence is not a name
        ("Which city is it. Canberra?", ()),
        ("Name the capital of Australia.", ("Australia",)),
        # a likeness names nothing asked about (FastAPI tune2 t41 was refused for it)
        ("Will FastAPI render my Next.js-style app?", ("FastAPI",)),
        ("Does it offer an OpenAI-compatible endpoint?", ()),
        ("Is HIV-positive status protected?", ("HIV-positive",)),
        # a version's codename after its number: documents name the number (uv v07)
        ("Can I run uv on macOS 12 Monterey?", ()),
        ("Does it work on Debian 12 Bookworm?", ("Debian",)),
        ("Does it support Ubuntu 22.04 Jammy Jellyfish?", ("Ubuntu",)),
        # words of chat name nothing (DRF r10 was refused: no page writes "OK")
        ("Is it OK to define a ModelSerializer Meta without fields?", ("ModelSerializer Meta",)),
        ("FYI: does it run on Windows? ASAP please", ("Windows",)),
    ],
)
def test_named_terms(question: str, names: tuple[str, ...]) -> None:
    assert named_terms(question) == names


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("GitLab", "GitHub processes DMCA notices", False),
        ("DMCA", "GitHub processes dmca notices", True),  # case-insensitive
        ("Korean", "users in North Korea", True),  # long word: stem "kore"
        ("GPUs", "one GPU per worker", True),  # short plural: stem "gpu"
        ("Korea", "Korean users", True),  # a stem starts a word, it need not be one
        ("GPUs", "the gpuless build", False),  # ... but an acronym ends before lower case
        ("QUIC", "see the Quickstart", False),
        ("CORS", "add CORSMiddleware", True),  # a capital may go on
        ("GPUs", "one GPU, two GPUs", True),
        ("HTTPS", "over HTTP/2", False),  # an acronym is never cut to a stem
        ("GPUs", "no accelerator", False),
        ("Korean", "Mkorea", False),  # must start a word
        ("HIV-positive", "HIV infection", True),  # capitalised parts only
        ("VSMCs", "vascular smooth muscle cells", True),  # an acronym's words
        ("GB", "good boy", False),  # two initials are too loose to expand
        ("Henri Leconte", "Leconte won", True),  # any word of a name
        ("UK", "the U.K. Bribery Act", True),  # a name in capitals, dotted
        ("UK", "the U.S. Act", False),
    ],
)
def test_mentions(name: str, text: str, expected: bool) -> None:
    assert mentions(name, text) is expected


def test_missing_names_needs_a_share_of_the_names() -> None:
    q = "How does GitLab handle DMCA counter notices?"  # two names
    texts = ["GitHub's DMCA policy", "counter notices"]
    assert missing_names(q, texts, 0.5) == ("GitLab",)  # 1 of 2 >= 0.5
    assert missing_names(q, texts, 1.0) == ()  # 1 of 2 < 1.0
    assert missing_names(q, [*texts, "GitLab docs"], 0.5) == ()
    three = "Is Henri Leconte or Jonathan Stark or Pete Sampras taller?"
    assert missing_names(three, ["Jonathan Stark", "Pete Sampras"], 0.5) == ()  # 1 of 3
    assert missing_names(three, ["Pete Sampras"], 0.5) == ("Henri Leconte", "Jonathan Stark")
    assert missing_names("how does gitlab work", [], 0.5) == ()  # names nothing
    assert missing_names("GitLab handles DMCA notices.", [], 0.5) == ()  # a statement


def test_the_asking_sentences_of_a_question_of_several() -> None:
    q = "I live in Germany. Which company is responsible for my data?"
    assert asking_sentences(q) == "Which company is responsible for my data?"
    two = "I moved. Who holds my data? Can I see it?"
    assert asking_sentences(two) == "Who holds my data? Can I see it?"
    # one sentence, or none that asks: the whole question
    assert asking_sentences("Which company holds my data?") == "Which company holds my data?"
    assert asking_sentences("I moved. Tell me who holds it.") == "I moved. Tell me who holds it."
    # an abbreviation ends no sentence: the question is one
    for one in (
        "How long will GitHub keep records if U.S. law enforcement asks it to?",
        "How do I count heroes matching a where() filter, e.g. with func.count()?",
        "What is the default, i.e. how big can a file get?",
    ):
        assert asking_sentences(one) == one


def test_a_name_only_in_a_sentence_that_sets_the_scene_is_not_required() -> None:
    pool = ["Automattic's privacy policy", "the data controller for WordPress.com"]
    q = "I live in Germany. Which company is responsible for my Automattic data?"
    assert missing_names(q, pool, 0.5) == ()
    # asked about, it is required
    assert missing_names("Which Automattic company handles data in Germany?", pool, 0.5) == (
        "Germany",
    )


def test_a_name_offered_with_a_found_alternative_is_not_missing() -> None:
    q = "Is it okay to post in GitHub Community what ChatGPT or Copilot wrote?"
    pool = ["GitHub Community guidelines", "GitHub Copilot terms"]
    assert alternatives(q) == [frozenset({"ChatGPT", "Copilot"})]
    assert missing_names(q, pool, 0.5) == ()  # ChatGPT alone is missing, Copilot stands in
    assert missing_names(q, ["GitHub Community guidelines"], 0.5) == ("ChatGPT", "Copilot")
    listed = "Can I pay with Stripe, PayPal or Venmo?"
    assert alternatives(listed) == [frozenset({"Stripe", "PayPal", "Venmo"})]
    assert alternatives("Does GitLab support Jira and Slack?") == []  # "and"
    assert alternatives("Do you integrate with Jira, Slack?") == []  # commas alone: a list
    # names compared are each needed ("Is Henri Leconte or Jonathan Stark taller?" above)
    assert alternatives("Who won more titles, Henri Leconte or Pete Sampras?") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GitLab handles notices?", True),
        ("Does GitLab handle notices", True),
        ("how many copies of holes were sold", True),
        ("APOE4 increases AlphaBeta production.", False),
        ("Name the capital of Australia.", True),
        ("", False),
    ],
)
def test_is_question(text: str, expected: bool) -> None:
    assert is_question(text) is expected


def test_embed_input_puts_title_and_heading_path_before_the_text() -> None:
    assert embed_context("Settings", "Settings > Install > Pin") == "Settings > Install > Pin"
    assert embed_context("Settings and env", "Install") == "Settings and env > Install"
    assert embed_context("", "") == "" and embed_context("T", "") == "T"
    assert embed_context("4983", "") == "" and embed_context("4983", "Intro") == "Intro"
    assert embed_input("T", "A > B", "Body.") == "T > A > B\n\nBody."
    assert embed_input("", "", "Body.") == "Body."


def test_embed_key_changes_with_title_heading_or_text_only() -> None:
    k = embed_key("T", "A > B", "h1")
    assert k == embed_key("T", "A > B", "h1")
    assert (
        len(
            {
                k,
                embed_key("T2", "A > B", "h1"),
                embed_key("T", "A", "h1"),
                embed_key("T", "A > B", "h2"),
            }
        )
        == 4
    )


def test_the_corpus_subject_does_not_dilute_a_missing_name() -> None:
    q = "How do I enable QUIC and HTTP for my FastAPI server?"  # QUIC, HTTP, FastAPI
    pool = ["FastAPI apps", "FastAPI with HTTP", "FastAPI routing", "FastAPI docs", "servers"]
    # FastAPI is in 4 of 5 candidates: the subject; QUIC is missing from 1 of the 2 others
    assert missing_names(q, pool, 0.5) == ("QUIC",)
    assert missing_names(q, pool, 0.6) == ()  # 1 of 2 < 0.6
    # fewer than SUBJECT_MIN_TEXTS candidates: every name counts, 1 of 3 < 0.5
    assert missing_names(q, pool[:4], 0.5) == ()


def test_in_a_recall_pool_a_name_is_mentioned_only_with_every_word() -> None:
    q = "How do I use Prisma Client Python with FastAPI?"
    pool = ["FastAPI with a Python client"] * WHOLE_NAME_POOL  # "Python", "client", never Prisma
    assert missing_names(q, pool, 0.5) == ("Prisma Client Python",)  # FastAPI: the subject
    assert missing_names(q, [*pool, "The Prisma Client Python ORM"], 0.5) == ()
    # a few texts (one knowledge snippet): any word of the name still counts
    assert missing_names(q, pool[: WHOLE_NAME_POOL - 1], 0.5) == ()
    assert mentions("Edwyn Collins", "Collins played bass.")
    assert not mentions("Edwyn Collins", "Collins played bass.", whole=True)


def test_display_reads_markdown_without_its_syntax_or_comments() -> None:
    text = (
        "*Published.* <!-- markdownlint-disable-line emphasis-style --> See the "
        "[**DMCA policy**](/dmca)."
    )
    assert display(text) == "*Published.* See the DMCA policy."
    # a sentence cut out of a bold paragraph keeps one half of its markers (Mozilla z29)
    assert display("Any liability is limited to $500.**") == "Any liability is limited to $500."
    assert display("**To the extent permitted by law, you agree.") == (
        "To the extent permitted by law, you agree."
    )
    assert display("Use `a**b` for powers.") == "Use `a**b` for powers."
    # a code span is code: `__name__` and `__init__.py` keep their underscores, and so does
    # an identifier with a double underscore inside it (no emphasis in CommonMark)
    assert display("Call `Flask(__name__)` in `__init__.py`.") == (
        "Call `Flask(__name__)` in `__init__.py`."
    )
    assert display("Set my__private__name and __strong__.") == "Set my__private__name and strong."
    # a name that opens with underscores (a table cell's cookie `__ssid`) keeps them
    assert display("__ssid") == "__ssid"
    assert display("__stripe_sid / __stripe_mid") == "__stripe_sid / __stripe_mid"
    assert display("A ``x`**y**`` code span.") == "A ``x`**y**`` code span."
    # MDX: JSX string expressions and inline <code> (SWR's docs)
    mdx = "On a slow network (2G, {'<='} 70Kbps), <code>errorRetryInterval</code> is 10s, and{' '}"
    assert display(mdx) == "On a slow network (2G, <= 70Kbps), `errorRetryInterval` is 10s, and"
    assert display("Pass {'a': 1} as options.") == "Pass {'a': 1} as options."  # an object
    # reference links (mkdocstrings), line breaks and template tags (Pydantic, Poetry docs)
    ref = "[`validate_call()`][pydantic.validate_call]<br>\nSee [the docs][] and `row[0][1]`."
    assert display(ref) == "`validate_call()` See the docs and `row[0][1]`."
    hugo = '{{% note %}} Poetry updates itself {{< relref "cli#self" >}}. {% hint style="info" %}'
    assert display(hugo) == "Poetry updates itself."
    assert display("Write `{% raw %}` in Jinja.") == "Write `{% raw %}` in Jinja."
    # GitBook: entities and hard line breaks written as a backslash; code keeps its text
    gitbook = "Host Fee Share is 15%.&#x20;\nEvery month\\\nthe Q&amp;A. `a &amp; b`"
    assert display(gitbook) == "Host Fee Share is 15%. Every month the Q&A. `a &amp; b`"
    # inline HTML (FastAPI dev f30, f66): a glossary term's tag is its text, and its title
    # is no word the claim says; a placeholder, an image and code keep their angle brackets
    html = (
        'Mark it <dfn title="obsolete, recommended not to use it">deprecated</dfn>; see the '
        '<abbr title="Mozilla Developer Network">MDN</abbr> docs, <strong>now</strong>.'
    )
    assert display(html) == "Mark it deprecated; see the MDN docs, now."
    kept = 'Send `Bearer <dfn>` as Bearer <token>, <img src="x.png"> <sup>1</sup>'
    assert display(kept) == 'Send `Bearer <dfn>` as Bearer <token>, <img src="x.png"> 1'


def test_word_run_finds_the_words_in_order_whatever_lies_between() -> None:
    text = "Intro. Signing keys\nrotate every **ninety** days. Done."
    assert word_run("Signing keys rotate every ninety days.", text) == (7, 48)
    assert word_run("keys rotate every ninety", text) == (15, 41)
    assert word_run("every keys rotate ninety", text) is None  # out of order
    assert word_run("keys rotate", text) is None  # too few words to be found by chance


def test_missing_identifiers_are_snake_case_names_and_long_flags_no_text_holds() -> None:
    texts = ["Set `allow_origins` and run with --reload.", "Use auto-reload."]
    q = "Do allow_origins, max_age and --log-level work with --reload or --RELOAD?"
    assert missing_identifiers(q, texts) == ("max_age", "--log-level")
    assert missing_identifiers("What does the self.x_y field hold?", texts) == ()  # dotted
    assert missing_identifiers("Is the Auto_Reload flag on?", texts) == ()  # not code-cased
    assert missing_identifiers("max_age and --log-level.", texts) == ()  # not a question


def test_missing_identifiers_read_dunder_names_and_calls_as_code_writes_them() -> None:
    """SQLModel's docs never call `add_all` or `count`, nor set `__tablename__`; the
    asker's object before the dot (`session.`, `func.`) is not looked for, and a class's
    call (`Field()`) is a name, not an identifier."""
    texts = ["Then `session.add(hero)` and `session.commit()`.", "Use `Field()` and count rows."]
    q = "Is there a session.add_all() call, or func.count(), or __tablename__?"
    assert missing_identifiers(q, texts) == ("__tablename__", "add_all()", "count()")
    assert missing_identifiers("Must I call db.commit() after s.add()?", texts) == ()
    assert missing_identifiers("Does Field() take a default?", texts) == ()
    # Python's own functions are not the corpus's to document
    assert missing_identifiers("It is a generator with no len(). Does it work?", texts) == ()
    assert missing_identifiers("Should I call print() or func.count()?", texts) == ("count()",)
    assert missing_identifiers("Is there a session.exec() call?", texts) == ("exec()",)  # a method
    # nor is a function of its standard library
    assert missing_identifiers("I call asyncio.create_task(). Why?", texts) == ()


def test_two_forms_of_a_word_share_a_key_and_its_terms_stay_as_written() -> None:
    # a possessive is no part of the word; "es" after a sibilant and "y"/"ies"/"ie" plurals
    assert content_words("GitHub's someone's supporters'") == ["github", "someone", "supporter"]
    pairs = [
        ("addresses", "address"),
        ("indexes", "index"),
        ("batches", "batch"),
        ("policies", "policy"),
        ("cookies", "cookie"),
        ("middlewares", "middleware"),
    ]
    for plural, one in pairs:
        assert word_key(plural) == word_key(one), (plural, one)
    # a vowel before "y" keeps it; four letters or fewer stay as they are
    assert word_key("delays") == word_key("delay") == "delay"
    assert (word_key("keys"), word_key("uses")) == ("keys", "uses")
    # "what's" is a stopword once its ending goes
    assert content_words("What's the policy?") == [word_key("policy")]
    # terms are shown and queried: they keep their letters
    assert terms("GitHub's cookies and policies") == ["github", "cookies", "policies"]
