"""The kind of value a question asks for, and whether an answer states one.

"How much does X cost?" is answered by a price, "What fee does X take?" by an amount or a share
("3% per transaction"), "What is the maximum file size?" by a size,
"What uptime percentage ...?" by a percentage. When the question asks for one of these and no
claim of the answer states a value of that kind, the claims are on the topic but do not
answer it (a liability cap in dollars for a file-size question, a 30-day notice period for a
"how many times" question): the answer is refused with the kind named, instead of shown.

Only kinds whose values have an unmistakable surface form are checked (a currency, a byte
unit, a percent sign, a time unit, a year or month, a phone number, an e-mail address, the word
"default" or what happens when nothing is set (for "by default"), an upper-case
`ENV_VAR` name for "which environment variable", a `--flag` for "which command-line flag";
"what keep-alive timeout / expiry / interval" asks for a duration like "how long"; "how
often" asks for a frequency: a period, "once a week", "daily", "periodically").
"How many <things>" (or
"what is the maximum number of <things>") is a count: it is stated by a claim that holds a
number (digits, a number word, "once", "unlimited", "no more than one") together with the
counted noun ("one free Account" for "how many free accounts"); a number without the noun
does not count ("30 days' notice" for "how many times can I change my username"). A bare
"when" is left to the refusal model, because its answers are often words ("when the request
is closed"); so is "how many ways / kinds / things", answered by a list. The question
patterns are English and general, never a corpus's phrases. Measured on the dev gold sets
and HaluEval-QA (see the note on `retrieval.answer_type_rule`).

A value must also be a value *of what was asked* (`unbound`): when every claim that states
the asked kind shares no word of what the question asks about (`focus_words`: its content
words without the asking words and the corpus's own name) in its text or its section's
headings, the answer gives a value of something else ("How much does a ticket to X cost?"
answered by a liability cap in dollars) and is refused the same way.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from server.core.text import CODE_SPAN, content_words, mentions, named_terms, sentences

_I = re.IGNORECASE
_SPELLED = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred)"
)
_NUMBER_WORD = rf"(?:\d[\d,.]*|an?|{_SPELLED})"
# What follows a number in a span of time: "30 days", "two business days", "six-month",
# "thirty (30) days", "a decade".
_TIME_UNIT = (
    r"\)?[\s-]+(?:business |calendar |working )?"
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|century|centuries)\b"
)
_YEAR = r"(?:1[6-9]|20)\d\d"
# A measure named by its unit of time ("a maximum time in seconds", "timeout (seconds)").
_IN_TIME_UNIT = r"(?:in|\()\s*(?:milliseconds|seconds|minutes|hours|days|weeks)\b"
# A default given as a number, in the markup reference docs wrap it in: "Defaults to `600`",
# "**Default:** *20.0*", "(default: 30000)", "It is set to 1000 by default".
_DEFAULT_NUMBER = (
    r"(?:\bdefaults?(?:\s+(?:to|is|value\s+is))?\s*:?[\s*_`'\"]*\d"
    r"|\b(?:set|limited|capped)\s+(?:to|at)\s+[*_`'\"]*\d[\d,.]*[*_`'\"]*\s+by\s+default\b)"
)

_DATA_NOUN = (
    r"(?:file|repository|repo|storage|disk|upload|attachment|package|cache|artifact|"
    r"bandwidth|memory|message|payload|body|request|image|database)"
)

# An amount of money, and a charge waived: what a price and a fee are stated by.
# Time away from work: what "how much paid leave" and "how much notice" ask an amount of.
_TIME_OFF = (
    r"(?:(?:parental |sick |family |medical |maternity |paternity |annual )?leave|"
    r"time[ -]off|vacation|holidays?|PTO|notice|sabbatical)\b"
)
# What a sum is named by: the thing a value is asked of, not an asking word.
_MONEY_NOUN = (
    r"(?:deductibles?|premiums?|salary|salaries|wages?|stipends?|budgets?|spending\s+limits?|"
    r"reimbursements?|bonus(?:es)?|co-?pays?)"
)
# What a rate is of ("What VAT rate ...?"), and what a span of time is named by ("How long is
# the trial?"): the things a value is asked of, not asking words.
_RATE_NOUN = r"(?:vat|tax|interest|commission|discount)"
# What a sum is paid as ("the minimum payout", "the maximum refund"): named, not asking.
_PAYMENT_NOUN = (
    r"(?:payouts?|payments?|refunds?|withdrawals?|deposits?|transfers?|donations?|"
    r"sponsorships?|purchases?|orders?|invoices?|balances?|transactions?)"
)
_EXTREME = r"(?:minimum|maximum|min|max|smallest|largest|lowest|highest)"
# what a capped sum is paid as: "what's the most GitHub could owe me in damages?"
_OWED = r"(?:liable|liability|pay|paid|owe|owed|refund\w*|compensat\w*|damages)"
_NOT_A_COUNT = r"(?!(?:number|count)\b)"  # "the maximum number of payments" is a count
_AMOUNT_FOR = r"amount\s+(?:for|per)\s+(?:an?\s+|the\s+|each\s+|one\s+)?(?:[\w-]+\s+){0,3}?"
_SPAN_NOUN = r"(?:period|window|term|delay|wait(?:ing)?(?:\s+time)?|trial|retention)"
# "How large does it let the buffer grow?": a buffer is measured as data is (not an asking
# word: what the value is of).
_BUFFER = r"buffer"
# An exit code, a coming release (its expectation and its verb): what the value is of, not
# asking words ("What exit code does the check return?" is about the exit code).
_EXIT_NOUN = r"(?:exit|return)\s+(?:codes?|status(?:es)?)"
_FUTURE = r"(?:expected|scheduled|planned|going|due|set)"
_RELEASED = r"(?:released|stable|launched|shipped|available|come\s+out)"
# "What is its setting if I don't pass it?": the default asked for by what is left out (the
# verbs say what is left out, they ask nothing).
_IF_NOT_GIVEN = r"\bif (?:i|you|we) (?:don't|do not|never) (?:pass|set|give|specify|provide)\b"
# "What does the cost include?" asks what it covers, not a price.
_OUT_OF_THE_BOX = r"\bout of the box\b"  # "by default", in other words
_NOT_A_PRICE = r"(?!\s+(?:of|include|includes|cover|covers)\b)"
_AUX = r"do|does|did|is|are|was|were|will|would|can|could|should|must|may|might"
_MONEY = (
    r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:USD|EUR|GBP|dollars?|euros?|pounds|cents?)\b"
    r"|\b(?:USD|EUR|GBP|CAD|AUD|CHF|JPY)\s?\d"  # the code first: "USD 8,333.34"
)
_NO_CHARGE = r"\b(?:no|without) (?:charge|cost|fee)s?\b"
# A contact detail asked for: after "what", "which", "where", "whose" or "is there" in the
# same clause, and not the asker's own ("my email address")
_ASKS_FOR = (
    r"\b(?:what|which|where|whose|is there|are there)\b[^?.;]*?"
    r"(?<!\bmy\s)(?<!\bmy\sfull\s)(?<!\byour\s)(?<!\bour\s)(?<!\btheir\s)\b"
)


@dataclass(frozen=True)
class AnswerType:
    """A kind of value: the question forms that ask for it and the forms that state it;
    `headed`: a claim's section headings may state it for the claim (a release's version
    heads its notes: "## 0.67.0" over "Add support for `dataclasses` ...");
    `marked`: it is stated in code, so its markers are read too (a command in backticks)."""

    name: str
    asks: re.Pattern[str]
    states: re.Pattern[str]
    headed: bool = False
    marked: bool = False

    def stated_in(self, text: str) -> bool:
        """Whether `text` states a value of this kind, read without inline-code and emphasis
        markers ("(`2678400` seconds)", "**30** days", "Every *three* years") unless the
        kind is `marked`."""
        return self.states.search(text if self.marked else _MARKERS.sub("", text)) is not None


# Backticks, and asterisks or underscores that open or close emphasis on a word (not "2 * 3",
# nor the underscores inside `max_age`).
_MARKERS = re.compile(r"`+|\*+(?=\w)|(?<=\w)\*+|(?<!\w)_+(?=\w)|(?<=\w)_+(?!\w)")


TYPES: tuple[AnswerType, ...] = (
    AnswerType(
        "price",
        re.compile(
            # ("How much fully paid leave ...?" asks for a span of time, `_TIME_OFF`)
            r"\bhow much\b[^?.]*\b(?:cost|costs|charge|charges|pay|pays|paid|price|fee|fees)\b"
            rf"(?!\s+{_TIME_OFF})"
            r"|\bwhat (?:is|are) the (?:price|cost|fee)s?\b|\bprize money\b"
            # "What does Basecamp Big cost per month?" (not "what does the cost include")
            rf"|\bwhat (?:does|do|did|will|would)\b[^?]*\bcosts?\b{_NOT_A_PRICE}",
            _I,
        ),
        # "free", never the last word of a compound ("a royalty-free, fully paid-up license"
        # is no price of taking part)
        re.compile(
            rf"{_MONEY}|(?<![\w-])free\b|{_NO_CHARGE}|\bnot charge\b",
            _I,
        ),
    ),
    AnswerType(
        "amount of money",  # a sum paid to or by someone, named by what it is
        re.compile(
            r"\b(?:what|how much)\s+(?:is|are|was|were)\s+(?:the|my|our|your|their)\s+"
            rf"(?:[\w-]+\s+){{0,2}}?{_MONEY_NOUN}\b"
            # "Above what amount do I need a receipt?", "What dollar amount ...?" (not "what
            # amount of time")
            r"|\b(?:what|which) (?:dollar |monetary )?amount\b(?!\s+of\b)"
            # "What is the minimum amount for a payout?", "the maximum refund" (not "the
            # maximum number of payments", not "the minimum amount of time")
            rf"|\b{_EXTREME}\s+(?:{_NOT_A_COUNT}[\w-]+\s+)?(?:{_AMOUNT_FOR})?{_PAYMENT_NOUN}\b"
            # a cap asked for: "What's the most Mozilla can be liable for?", "... the most
            # they'd have to pay me?"
            # (not "the most common reason for a refund": a sum owed has a modal before it)
            rf"|\bwhat(?:'s|’s|\s+is)\s+the\s+most\s+(?:[\w-]+\s+){{0,3}}?"
            rf"(?:\w+['’]d|can|could|will|would|might|may|must|shall)\b[^?]*\b{_OWED}\b",
            _I,
        ),
        # a sum, a share of one ("100% of the premium"), or nothing to pay
        re.compile(
            rf"{_MONEY}|\b\d+(?:\.\d+)?\s?(?:%|percent\b)|{_NO_CHARGE}|(?<![\w-])free\b",
            _I,
        ),
    ),
    AnswerType(
        "fee",
        re.compile(
            r"\bwhat (?:\w+ )?(?:fee|fees|commission|cut)\b(?! waiver)"
            r"|\b(?:what|which) (?:share|portion|fraction|proportion) of\b",
            _I,
        ),
        # an amount of money, or a share of it
        re.compile(
            rf"{_MONEY}|\b\d+(?:\.\d+)?\s?(?:%|percent\b)|{_NO_CHARGE}",
            _I,
        ),
    ),
    AnswerType(
        "size",
        re.compile(
            rf"\b{_DATA_NOUN}\s+(?:size|limit|quota)s?\b"
            rf"|\bsize of (?:a |an |the |each |one )?(?:single )?(?:[\w-]+ ){{0,2}}?{_DATA_NOUN}"
            # "How large does it let the buffer grow?"
            rf"|\bhow (?:large|big)\b[^?]*\b(?:{_DATA_NOUN}|{_BUFFER})s?\b"
            # "the biggest WebSocket message" (not "the maximum number of files")
            rf"|\b(?:biggest|largest|maximum|max)\s+(?:{_NOT_A_COUNT}[\w-]+\s+){{0,2}}?{_DATA_NOUN}s?\b"
            r"|\bhow much (?:[\w-]+ ){0,3}?(?:storage|disk|space|memory|bandwidth)\b"
            r"|\bin (?:[KMGT]i?B|bytes)\b",
            _I,
        ),
        re.compile(
            r"\b\d[\d,.]*\s?(?:[KMGTP]i?B|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?)\b"
            r"|\bunlimited\b|\bno (?:size )?limit\b",
            _I,
        ),
    ),
    AnswerType(
        "length",  # of a text, a name, a URL: in characters or bytes
        re.compile(
            r"\b(?:maximum|minimum|max|min|longest|shortest)\s+(?:[\w'’-]+\s+){0,2}?length\b"
            r"|\blength limits?\b",
            _I,
        ),
        re.compile(
            r"\b\d[\d,.]*\s?(?:characters?|chars?|bytes?|digits?|letters?|words?|symbols?|"
            r"[KMGT]i?B)\b"
            r"|\b(?:max|min)_?length\s*=\s*\d|\bunlimited\b|\bno (?:length )?limit\b",
            _I,
        ),
    ),
    AnswerType(
        "percentage",
        # a share asked by name, or a rate of tax or interest ("What VAT rate ...?")
        re.compile(rf"\bpercent(?:age)?s?\b|\b{_RATE_NOUN}\s+rates?\b", _I),
        re.compile(r"\d\s?%|\bper ?cent\b", _I),
    ),
    AnswerType(
        "duration",
        re.compile(
            # (not "How long can each option be?": a length)
            r"\bhow long (?:do|does|did|will|would|can|could|should|must|may|has|have|had|"
            r"until|before|after|to)\b(?![^?]*\bbe\s*\?)"
            r"|\bfor how many (?:seconds|minutes|hours|days|weeks|months|years)\b"
            # a span named ("How long is the preservation period?", "... the free trial?");
            # "how long is a username" is a length
            r"|\bhow long (?:is|are|was|were) (?:the|a|an|my|your|our|their|this|that) "
            rf"(?:[\w-]+ ){{0,2}}?{_SPAN_NOUN}s?\b"
            # "How much paid leave / notice ...?": an amount of time off
            rf"|\bhow much (?:(?!(?:{_AUX})\b)[\w-]+ ){{0,2}}?{_TIME_OFF}"
            # "what keep-alive timeout ...", "which expiry ...", "what is the default network
            # timeout ...", "what is the maximum duration ...": a named span of time
            r"|\b(?:what|which)\s+(?:(?:is|are|was|were)\s+(?:the\s+)?)?(?:[\w'’-]+\s+){0,3}?"
            r"(?:timeouts?|time-?outs?|expiry|expiration|ttl|lifetime|retention\s+period|"
            r"grace\s+period|interval|duration)\b"
            # "Is there a default timeout after which ...?"
            r"|\bdefault\s+(?:timeouts?|time-?outs?|expiry|expiration|ttl|lifetime|interval)\b"
            # the unit asked for: "What is the timeout, in seconds, ...?"
            r"|,\s*in\s+(?:milliseconds|seconds|minutes|hours|days|weeks|months|years)\b",
            _I,
        ),
        re.compile(
            rf"\b{_NUMBER_WORD}{_TIME_UNIT}"
            # a span of time as code gives it: `timedelta(days=31)`, `max_age=timedelta(hours=1)`
            r"|\b(?:milliseconds|seconds|minutes|hours|days|weeks)\s*=\s*\d"
            # a setting measured in a unit of time and its default given as a bare number, the
            # way reference docs list options: "Sets a maximum time in seconds for browsers to
            # cache CORS responses. Defaults to `600`.", "(in milliseconds) (default: 30000)"
            rf"|\b{_IN_TIME_UNIT}[^\n]*?{_DEFAULT_NUMBER}"
            r"|\b(?:indefinitely|immediately|permanently|forever|until|as long as|hourly|daily|"
            r"weekly|monthly|annually|yearly)\b"
            # a vague count of units ("took years", "for several months") or a span of years
            # given by its ends ("2001-2006", "from 2001 to 2006")
            r"|\b(?:took|takes|take|for|several|many|few|couple of)\s+"
            r"(?:seconds|minutes|hours|days|weeks|months|years|decades)\b"
            rf"|\b{_YEAR}\s*[-–]\s*(?:{_YEAR}|\d\d)\b(?!-\d)"
            rf"|\b(?:from|between)\s+{_YEAR}\s+(?:to|until|through|and)\s+{_YEAR}\b",
            _I,
        ),
    ),
    AnswerType(
        "frequency",
        re.compile(
            # ("how many times a year" is a count of times, `counted`)
            r"\bhow (?:often|frequently)\b|\bat what (?:interval|frequency|rate)\b",
            _I,
        ),
        # a period it recurs by, a count of times, or a word for either
        re.compile(
            r"\b(?:every|each|per)\s+(?:[\w-]+\s+)?"
            r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|quarters?|years?)\b"
            r"|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|several|many) times\b"
            r"|\b(?:once|twice|hourly|daily|weekly|fortnightly|monthly|quarterly|annually|yearly|"
            r"biannually|periodically|regularly|continuously|constantly|whenever)\b",
            _I,
        ),
    ),
    AnswerType(
        "date",
        re.compile(
            r"\b(?:on what|what|which|in what) (?:date|day|year)\b"
            # "What is the DPA Coverage Date for ...?": a named date, the head of what is asked
            # (not "the policy for dates")
            r"|\b(?:what|which) (?:is|are|was|were) the "
            r"(?:(?!(?:for|of|in|on|to|about|with)\b)[\w-]+ ){0,3}?dates?\b",
            _I,
        ),
        # a year (not a version's part, a pull request's number nor a count: "0.100.0",
        # "PR #1569", "8000"), a month, a date as written, a day of the month ("on the 22nd")
        # or of the week ("the third Thursday of the month")
        re.compile(
            rf"(?<![\w.#]){_YEAR}(?![\w.]*\d)|(?-i:\b(?:January|February|March|April|"
            r"May|June|July|August|September|October|November|December)\b)|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b"
            r"|\b\d{1,2}(?:st|nd|rd|th)\b"
            r"|(?-i:\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b)",
            _I,
        ),
    ),
    AnswerType(
        "release date",
        # a coming release or a stable API asked for by when ("When will FastAPI 1.0 be
        # released?", "When is the pipeline API expected to become stable?"); not a date that
        # follows from a condition ("When will Stripe pay out my first sponsorship money?")
        re.compile(
            r"\bwhen\s+(?:will\s+(?:[\w.'’-]+\s+){0,6}?(?:be\s+|become\s+)?"
            rf"|(?:is|are)\s+(?:[\w.'’-]+\s+){{0,6}}?{_FUTURE}\s+to\s+(?:be\s+|become\s+)?)"
            rf"{_RELEASED}\b",
            _I,
        ),
        # a year (not a version's part nor a pull request's number), a month, a quarter, a
        # relative period, or the word that there is no date yet; a version number is no time
        # ("Tag version like `0.13.3`", "PR #1569")
        re.compile(
            r"(?<![\w.#])(?:19|20)\d{2}(?![\w.]*\d)|(?-i:\b(?:January|February|March|April|May|"
            r"June|July|August|September|October|November|December)\b)|\bQ[1-4]\b"
            r"|\b(?:next|this|coming|later this)\s+(?:week|month|quarter|year|spring|summer|"
            r"autumn|fall|winter)\b|\bno\s+(?:fixed\s+|set\s+|release\s+)?date\b"
            r"|\bnot\s+(?:yet\s+)?(?:scheduled|planned|decided)\b",
            _I,
        ),
    ),
    AnswerType(
        "environment variable",
        re.compile(
            r"\b(?:what|which)\s+(?:[\w-]+\s+){0,2}?(?:environment|env)\s+var(?:iable)?s?\b"
            r"|\bnames?\s+of\s+the\s+(?:environment|env)\s+var(?:iable)?s?\b",
            _I,
        ),
        # an upper-case name with an underscore or a $ sign: `WEB_CONCURRENCY`, $PORT
        re.compile(r"(?-i:\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\$[A-Z][A-Z0-9_]*\b|\b[A-Z]{3,}=)"),
    ),
    AnswerType(
        "command-line flag",
        re.compile(
            # asked for ("which command-line option ...?"), not merely named: in a CLI
            # library's docs "Can a CLI argument fall back to ...?" asks no flag
            r"\b(?:what|which)\s+(?:[\w-]+\s+){0,2}?"
            r"(?:(?:command[- ]line|cli)\s+(?:options?|switch(?:es)?|arguments?)|flags?)\b",
            _I,
        ),
        re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*"),
    ),
    AnswerType(
        "command",
        # "What Alembic command should I run ...?", "which command starts ...?" (a
        # command-line flag is asked for above)
        re.compile(r"\b(?:what|which)\s+(?:[\w.-]+\s+){0,3}?commands?\b(?![\s-]*line\b)", _I),
        # documentation writes a command as code: a program's lower-case name and its
        # arguments in backticks (`alembic upgrade head`, not `create_all(engine)`), a shell
        # block, or a line after a shell prompt
        re.compile(
            r"`[a-z][\w.-]*(?: +[^`\s(][^`\n]*)+`|```(?:console|bash|shell|sh|zsh|powershell)\b"
            r"|^\s*\$\s",
            re.MULTILINE,
        ),
        marked=True,
    ),
    AnswerType(
        "exit code",
        # "What exit code does `poetry check` return ...?", "which exit status ...?" (an HTTP
        # status code is not one: "Which status code ends up in the response?" is answered by
        # "the last one to be set will win")
        re.compile(
            rf"\b(?:what|which)\s+(?:[\w-]+\s+){{0,2}}?{_EXIT_NOUN}\b",
            _I,
        ),
        # a code as written (`0`, "exit code 2", "sys.exit(1)"), or a non-zero / zero one
        re.compile(r"(?<![\w.])\d{1,3}(?![\w.]*\d)|\bnon-?zero\b|\bzero\b", _I),
    ),
    AnswerType(
        "phone number",
        # asked for ("What is the agent's phone number?", "Is there a phone number I can
        # call?"), not merely named ("Do you share my phone number?", "posting someone's
        # phone number in a repo")
        re.compile(rf"{_ASKS_FOR}(?:phone|telephone|fax) number\b", _I),
        # a number, or none to call ("We do not offer telephone support.")
        re.compile(
            r"\+?\d[\d ().-]{6,}\d|\b(?:no|not|n't|never)\b[^.?!\n]{0,40}\b(?:tele)?phone\b", _I
        ),
    ),
    AnswerType(
        "default value",
        re.compile(
            r"\bby default\b|\b(?:what|which) (?:is |are )?(?:the |its )?default\b"
            r"|\bdefault (?:value|setting|behaviou?r)s?\b"
            # "What is its autoescape setting if I don't pass autoescape?"
            rf"|{_IF_NOT_GIVEN}"
            # "What's the biggest message it accepts out of the box?" (not "Does it work out of
            # the box?", which asks whether)
            rf"|\b(?:what|which|how)\b[^?]*{_OUT_OF_THE_BOX}",
            _I,
        ),
        # the default named, or what happens when nothing is set
        re.compile(
            r"\bdefault(?:s|ed|ing)?\b|\bunless\b|\botherwise\b|\bomit"
            r"|\bif (?:you )?(?:do not|don't|did not|didn't|never)\b"
            r"|\bif (?:it is |it's |they are |one is )?not "
            r"(?:set|given|provided|passed|declared|specified)\b",
            _I,
        ),
    ),
    AnswerType(
        "version",
        # "Since which FastAPI release ...?", "which version do I need?"; release notes are
        # what they name, not a version
        # ("What is the exact minimum Rust version ...?"; not "what is the release process")
        re.compile(
            r"\b(?:which|what) (?:[\w.-]+ ){0,2}?(?:version|release)s?\b(?! notes?\b)"
            r"|\b(?:which|what) (?:is|are|was|were) the (?:[\w.-]+ ){0,3}?versions?\b"
            r"(?! (?:notes?|polic(?:y|ies)|cycles?|process(?:es)?|schemes?|control|history)\b)",
            _I,
        ),
        # a version number as written: "0.67.0", "v2.1", "Python 3.10"
        re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*\b"),
        headed=True,
    ),
    AnswerType(
        "email address",
        # asked for ("What email address reaches ...?"), not merely named ("Does Mozilla end
        # up with my full email address?", "My command prompts for an email address.")
        re.compile(rf"{_ASKS_FOR}e-?mail address(?:es)?\b", _I),
        # an address as written, or spelled out against scrapers ("security(at)github(dot)com")
        re.compile(r"[\w.+-]+@[\w-]+\.\w|\b\w+\s*[(\[]at[)\]]\s*\w+", _I),
    ),
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# "How many <counted noun phrase> <verb> ...": the phrase ends before the first of these words.
# ... or "What is the (maximum) number of <counted noun phrase> ...".
_HOW_MANY = re.compile(
    r"\b(?:how\s+many|what(?:'s|\s+is|\s+are|\s+was)\s+the\s+(?:(?:minimum|maximum|min|max|"
    r"total|exact|average|default|largest|smallest|highest|lowest|typical|allowed)\s+)?"
    r"number\s+of)\s+"
    r"((?:[\w'’-]+\s*){1,6})",
    _I,
)
_PHRASE_END = _words(
    "a an the do does did can could are is was were will would should must may might have "
    "has "
    "had per in on at by for of to from with that which who whom get gets each every "
    "i you we they it there he she my your our their this these those one"
)
_COUNT = re.compile(
    r"\b(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|single|once|twice|"
    r"thrice|both|zero|none|unlimited|several|multiple|a\s+few|any\s+number)\b",
    _I,
)


_TIMES = re.compile(
    r"\b(?:once|twice|thrice)\b|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"single|several|multiple|many|unlimited|any\s+number\s+of)\s+(?:\w+\s+)?times?\b",
    _I,
)


def _singular(word: str) -> str:
    w = word.lower().strip("'’")
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ses", "xes", "ches", "shes")) and len(w) > 4:
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


# Words of a counted phrase that do not name what is counted ("how many free accounts").
_QUALIFIERS = _words(
    "free more different other new total additional maximum minimum extra separate "
    "distinct individual possible active private public paid"
)
# Counted nouns answered by a list, not a number ("how many ways can I ...").
_ENUMERATIONS = _words("thing way kind type sort form reason purpose method option example step")


def counted(question: str) -> tuple[str, ...]:
    """The words of the phrase a "how many" question counts ("How many free GitHub Actions
    minutes does ..." -> ("free", "GitHub", "Actions", "minutes")), or () when it asks no
    count."""
    m = _HOW_MANY.search(question)
    if m is None:
        return ()
    words: list[str] = []
    for w in re.findall(r"[\w'’-]+", m.group(1)):
        if w.lower() in _PHRASE_END and words:
            break
        if not words and w.lower() in _AUXILIARIES:  # "fill in how many are available"
            return ()
        words.append(w)
    return tuple(words)


# A verb right after "how many" leaves the counted thing unnamed ("what happens if I don't
# fill in how many are available?"): no phrase to count.
_AUXILIARIES = frozenset(
    ["are", "is", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should"]
)


# Words from a number to the thing it counts: "5 devices", "up to 10,000 private members",
# "one free Account". Our choice, a rule: a number farther off counts something else ("at
# once, while both accept a `--package` argument ... a workspace member").
COUNT_REACH = 4


def states_count(phrase: Sequence[str], text: str) -> bool:
    """Whether `text` (one claim) holds a number with a word of the counted phrase at most
    `COUNT_REACH` words after it, singular or plural, qualifiers aside ("one free Account"
    for "how many free accounts"), or two words before a written number ("members: 50");
    "time" is also stated by "once", "twice". The phrase may run into the question's verb
    ("how many people live ..."): any of its words counts."""
    if not _COUNT.search(text):
        return False
    if _singular(phrase[-1]) == "time":  # "a period of time" is no count of times
        return bool(_TIMES.search(text))
    nouns = _counted_nouns(phrase)
    words = list(re.finditer(r"[\w'’-]+", text))
    at = [i for i, w in enumerate(words) if _singular(w.group()) in nouns]
    for m in _COUNT.finditer(text):
        n = sum(w.start() < m.start() for w in words)  # the number's first word
        k = _past_partitive(words, n + len(m.group().split()))  # the first word after it
        if any(0 <= i - k < COUNT_REACH for i in at) or (
            m.group()[0].isdigit() and any(0 < n - i <= 2 for i in at)
        ):
            return True
    return any(
        _singular(w) in nouns
        for m in _NAMED_COUNT.finditer(text)
        for w in re.findall(r"[\w'’-]+", m.group(1))
    ) or _count_option(nouns, words, text)


# An option that holds a count, as reference docs describe one: named by "number of" or
# "how many" and the counted thing, then its default given as a number ("`--workers <int>` -
# Number of worker processes. Defaults to the `$WEB_CONCURRENCY` environment variable if
# available, or 1.", "... how many different processes Puma forks into. Defaults to `2`.").
_NAMES_COUNT = re.compile(r"\b(?:number\s+of|how\s+many)\b", _I)
_GIVES_DEFAULT_NUMBER = re.compile(
    rf"{_DEFAULT_NUMBER}|\bdefaults?\s+to\b[^.;\n]*?\bor\s+[*_`'\"]*\d", _I
)
# Words from "number of" / "how many" to the thing counted ("how many `multipart/form-data`
# fields"); our choice, a rule.
NAMED_COUNT_REACH = 3


def _count_option(nouns: set[str], words: Sequence[re.Match[str]], text: str) -> bool:
    """`text` names the count of one of `nouns` and gives its default as a number."""
    if not _GIVES_DEFAULT_NUMBER.search(text):
        return False
    for m in _NAMES_COUNT.finditer(text):
        k = sum(w.start() < m.end() for w in words)  # the first word after it
        if any(_singular(w.group()) in nouns for w in words[k : k + NAMED_COUNT_REACH]):
            return True
    return False


# The count named and then given in one clause: "the maximum number of browser sessions
# allowed per user, which defaults to 10", "The number of workers is 4".
_NAMED_COUNT = re.compile(
    r"\bnumber\s+of\s+((?:[\w'’-]+\s+){0,3}?[\w'’-]+)\b[^.;:]*?"
    r"\b(?:is|are|was|were|defaults?\s+to|(?:is\s+)?(?:set|limited|capped)\s+(?:to|at))\s+"
    r"(?:up\s+to\s+|at\s+most\s+|at\s+least\s+|only\s+)?\d",
    _I,
)


# "5 of your own public posts", "two of the free seats": the partitive after a number
_PARTITIVE = _words("of the your my our their its his her these those own")


def _past_partitive(words: Sequence[re.Match[str]], k: int) -> int:
    """The first word at or after `k` that is not part of a partitive ("of your own")."""
    if k < len(words) and words[k].group().lower() == "of":
        while k < len(words) and words[k].group().lower() in _PARTITIVE:
            k += 1
    return k


def _counted_nouns(phrase: Sequence[str]) -> set[str]:
    """The last word of the phrase, and its other words in lower case that are no
    qualifiers: names are the topic, not the thing counted ("GitHub Sponsors tiers")."""
    rest = {_singular(w) for w in phrase[:-1] if w.islower() and w not in _QUALIFIERS}
    return {_singular(phrase[-1]), *rest}


# An exact count in words, up to one word before the thing counted ("one single time",
# "two free Accounts"); "several", "multiple", "any number of" are no exact count.
_EXACT_COUNT = re.compile(
    r"\b(?:once|twice|thrice)\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|single|zero)\s+(?:[\w-]+\s+)?([\w'’-]+)",
    _I,
)


def counts_in_words(question: str, text: str) -> bool:
    """Whether `text` gives the count a "how many" question asks for as an exact number in
    words next to the thing counted: "Make sure to use `yield` one single time" for "How
    many times can a dependency yield?", never "a member of any number of Organizations"."""
    phrase = _counted_phrase(question)
    if not phrase:
        return False
    nouns = _counted_nouns(phrase)
    for m in _EXACT_COUNT.finditer(text):
        said = m.group(1)
        if (said is None and "time" in nouns) or (said and _singular(said) in nouns):
            return True
    return False


# A clause asking how to do something, why, or what happens asks for a way, a reason or a
# consequence, not for the value its words name: "How can an argument's default value be
# computed at runtime?", "How can I count how many times a flag was repeated?", "Why doesn't
# X show them by default?", "What happens if I leave the quantity empty?".
_WAY_OR_REASON = re.compile(
    r"^\W*(?:how\s+(?:do|does|did|can|could|should|would|to)\b|why\b|what\s+happens\b)", _I
)
# Where a question's clauses part: a sentence's end, or an "and" / "but" / "or" that opens
# a new question ("How do I ..., and which version added it?").
_CLAUSES = re.compile(
    r"(?<=[.?!;])\s+|,?\s+(?:and|but|or)\s+"
    r"(?=(?:what|which|how|when|where|who|is|are|does|do|did|can|could|will|would)\b)",
    _I,
)


@lru_cache(maxsize=256)  # read by every kind test, for each claim of an answer
def value_asked(question: str) -> str:
    """The clauses of the question that may ask for a value: all but those asking how to do
    something or why (`_WAY_OR_REASON`), one per line."""
    return "\n".join(c for c in _CLAUSES.split(question) if not _WAY_OR_REASON.search(c))


# A span of time in words ("six months", "two business days"): a number the digit test misses.
_TIME_IN_WORDS = re.compile(rf"\b{_SPELLED}{_TIME_UNIT}", _I)


def time_in_words(text: str) -> bool:
    """`text` gives a span of time in words ("up to six months after we notify you")."""
    return _TIME_IN_WORDS.search(text) is not None


# "What's the default ...?" asks as "What is the default ...?" does.
_WH_IS = re.compile(r"\b(what|which|where|when|who|how)['’]s\b", _I)


def asked_types(question: str) -> list[AnswerType]:
    """The kinds of value the question asks for (usually none, at most a couple), read
    from the clauses that may ask for one (`value_asked`), "what's" read as "what is"."""
    asking = _WH_IS.sub(r"\1 is", value_asked(question))
    return [t for t in TYPES if t.asks.search(asking)]


def _counted_phrase(question: str) -> tuple[str, ...]:
    """The counted phrase of a "how many" question, unless it counts ways, kinds or things
    (or the "how many" lies in a clause that asks how or why)."""
    phrase = counted(value_asked(question))
    return phrase if phrase and not _counted_nouns(phrase) <= _ENUMERATIONS else ()


def states_asked(question: str, text: str) -> bool:
    """Whether `text` (one claim) states a value of a kind the question asks for: the unit
    that gives "about 3 months" for "How long ...?" answers it; the one that explains the
    topic does not."""
    return stated_kinds(question, text) > 0


def stated_kinds(question: str, text: str) -> int:
    """How many of the kinds the question asks for `text` states (a count counts as one):
    "Default: `timedelta(days=31)`" gives the duration and the default of "How long does a
    session last by default?", "(the default) ... more reliably keep the session from
    expiring" only a default."""
    phrase = _counted_phrase(question)
    kinds = sum(t.stated_in(text) for t in asked_types(question))
    return kinds + bool(phrase and states_count(phrase, text))


# "How do I / how can we / how to ...": a how-to question, answered in technical documentation
# by the code that does it.
_HOW_TO = re.compile(r"^\W*(?:how (?:do|can|could|should|would) (?:i|we|you|one)\b|how to\b)", _I)


def asks_how_to(question: str) -> bool:
    """The question asks how to do something ("How do I enable CORS?")."""
    return bool(_HOW_TO.search(question))


# A unit that opens by saying how to do a thing: a purpose clause, then what to use or do ("To
# create a middleware you use the decorator ...", "To stream SSE with FastAPI, use `yield` ...",
# "To disable the optimizer completely, use `optimizeDeps.noDiscovery: true`").
_INSTRUCTION = re.compile(
    r"^\W*(?:in order )?to\s+([a-z][^.:;]*?),?\s+"
    r"(?:you\s+(?:can\s+|need\s+to\s+|should\s+|must\s+|would\s+|have\s+to\s+)?)?"
    r"(?:just\s+|simply\s+|also\s+)?"
    r"(?:use|call|set|add|pass|import|declare|create|run|install|define|wrap|include|put|write"
    r"|return|raise|inherit|mount|enable|disable)\b",
    _I,
)


def instructs(question: str, text: str) -> bool:
    """`text` says how to do what a how-to question asks: it opens with a purpose clause that
    shares a content word with the question, then an instruction ("How do I write middleware
    ...?": "To create a middleware you use the decorator `@app.middleware("http")` ...")."""
    if not asks_how_to(question):
        return False
    m = _INSTRUCTION.match(text)
    return m is not None and not set(content_words(m.group(1))).isdisjoint(content_words(question))


# The verb a how-to question asks to do: "How do I stream ...", "How can I quickly add ...".
_HOW_TO_VERB = re.compile(_HOW_TO.pattern + r"\s+(?:[a-z]+ly\s+)?([a-z]+)", _I)


def instructs_closely(question: str, text: str) -> bool:
    """`text` instructs (`instructs`) and its purpose clause is the question's own task: it
    opens with the verb the question asks to do and shares at least two content words with
    the question ("How do I stream Server-Sent Events from an endpoint?": "To stream SSE with
    FastAPI, use `yield` ..." shares the verb alone; "To stream Server-Sent Events (SSE), use
    `yield` ..." is close)."""
    if not instructs(question, text):
        return False
    verb, m = _HOW_TO_VERB.search(question), _INSTRUCTION.match(text)
    if verb is None or m is None:
        return False
    clause = m.group(1).split()
    if not clause or clause[0].lower() != verb.group(1).lower():
        return False
    return len(set(content_words(m.group(1))) & set(content_words(question))) >= 2


# "How long are X valid?" asks for a duration or a length: too loose for the refusal rule
# ("how long is a username" is answered in characters), enough to choose which claim leads.
_HOW_LONG_BE = re.compile(r"\bhow long (?:is|are|was|were)\b", _I)
_DURATION = next(t for t in TYPES if t.name == "duration")


# A default given, not only named: "By default, X ...", "X defaults to Y", "the default is
# Y", "Default: `False`", "Sending it every time (the default) ...", a value written as code,
# a number or a quote after "default ... is" or before "is the default" ("the `status_code`
# used will be the default one for the `RedirectResponse`, which is `307`", "`200` is the
# default status code").
_GIVES_DEFAULT = re.compile(
    r"\bby\s+default\b|^\W*default\s*:|\bdefaults?\s+to\b|\bdefault(?:\s+value)?\s+(?:is|was)\b"
    r"|\((?:the\s+)?default\)"
    r"|\bdefault\b[^.;:?!]{0,60}?\b(?:is|was)\s+[`\"'\d]|[`\"'\d]\S*\s+(?:is|was)\s+the\s+default\b",
    _I,
)
_DEFAULT = next(t for t in TYPES if t.name == "default value")


def gives_default(question: str, text: str) -> bool:
    """The question asks for a default and `text` gives one (`_GIVES_DEFAULT`)."""
    return _DEFAULT in asked_types(question) and bool(_GIVES_DEFAULT.search(_MARKERS.sub("", text)))


def states_asked_kind(question: str, text: str) -> bool:
    """Whether `text` states a value of a kind the question asks for (`asked_types`, read by
    `states_kind`)."""
    return states_kind(asked_types(question), text)


def states_kind(kinds: Sequence[AnswerType], text: str) -> bool:
    """Whether `text` states a value of one of `kinds`, a default only when it gives one
    (`_GIVES_DEFAULT`); a count is no kind here: a word or a number near the counted noun
    is too loose a sign to fetch a unit by ("the default program ... of a container" for "How
    many worker processes ... if I don't pass --workers?", "approximately 1 business day,
    upon request" for "how many removal requests ...")."""
    return any(
        _GIVES_DEFAULT.search(_MARKERS.sub("", text)) is not None
        if t is _DEFAULT
        else t.stated_in(text)
        for t in kinds
    )


# "Why ...?", "How come ...?", "For what reason ...?": a question that asks for a reason, and
# the words that give one.
_WHY = re.compile(r"\bwhy\b|^\W*how come\b|\b(?:for what|what is the|what's the) reason\b", _I)
_BECAUSE = re.compile(
    r"\b(?:because|so that|in order to|that'?s why|that is why|the reason|due to|otherwise)\b", _I
)


# A parenthesis: an aside, whose reason is not the unit's ("(because we don't specify a port,
# the browser will assume the default port `80`)").
_ASIDE = re.compile(r"\([^()]*\)")


def gives_reason(question: str, text: str) -> bool:
    """The question asks why and `text` gives a reason ("because", "so that", "otherwise",
    ...) outside parentheses: "Why pass check_same_thread=False ...?" is answered by "we
    also need to disable it because in FastAPI each request could be handled by multiple
    threads", not by the unit that says it is one change from before."""
    said = _ASIDE.sub(" ", _MARKERS.sub("", text))
    return bool(_WHY.search(question)) and bool(_BECAUSE.search(said))


def leads(question: str, text: str) -> bool:
    """Whether `text` may lead the answer as its direct value: it states a kind the question
    asks for (`states_asked`), a duration for a "how long is/are" question, or a reason
    for a "why" question (`gives_reason`)."""
    return (
        states_asked(question, text)
        or bool(_HOW_LONG_BE.search(question) and _DURATION.stated_in(text))
        or gives_reason(question, text)
    )


def unstated(question: str, texts: Sequence[str], headings: Sequence[str] = ()) -> list[str]:
    """Names of the kinds the question asks for that none of `texts` states (a count: that
    no one text states); a `headed` kind may also be stated by the claims' section
    `headings`."""
    joined = "\n".join(texts)
    headed = "\n".join((joined, *headings))
    out = [t.name for t in asked_types(question) if not t.stated_in(headed if t.headed else joined)]
    phrase = _counted_phrase(question)
    if phrase and not any(states_count(phrase, t) for t in texts):
        out.append(f"number of {' '.join(phrase)}")
    return out


# Words that ask for the value rather than say what it is the value of.
_ASKING = _words(
    "how much many long often old big large far fast what which when is are does do did "
    "maximum minimum max min default number limit size value amount total exact average "
    "typical allowed largest smallest highest lowest "
    # the environment-variable pattern writes "var(?:iable)?", which `_pattern_words` reads as
    # "var" and "iable"
    "variable variables "
    # the verb that ties the asked value to its subject ("Which environment variable sets the
    # number of workers?"): a claim that another variable "sets" something is not about workers
    "set sets control controls determine determines configure configures specify specifies"
)


def _pattern_words(pattern: str) -> set[str]:
    return {
        c
        for w in re.findall(r"[a-z]{3,}", re.sub(r"\\[a-zA-Z]", " ", pattern))
        for c in content_words(w)
    }


# ... and the words of the asking patterns ("cost", "fee", "interval", "timeout", ...), but
# not the names of what a value is asked of ("leave", "notice", "deductible", "salary", "VAT",
# "trial"): a claim about the deductible is about what was asked; nor the words a pattern
# only rules out ("include").
_NOT_ASKING = (
    _OWED,
    _TIME_OFF,
    _MONEY_NOUN,
    _PAYMENT_NOUN,
    _NOT_A_COUNT,
    _AMOUNT_FOR,
    _RATE_NOUN,
    _SPAN_NOUN,
    _NOT_A_PRICE,
    _BUFFER,
    _EXIT_NOUN,
    _FUTURE,
    _RELEASED,
    _IF_NOT_GIVEN,
    _OUT_OF_THE_BOX,
)


def _asking_part(pattern: str) -> str:
    """A kind's question pattern without the fragments of `_NOT_ASKING`."""
    for fragment in _NOT_ASKING:
        pattern = pattern.replace(fragment, " ")
    return pattern


_ASKING_WORDS = _ASKING | {w for t in TYPES for w in _pattern_words(_asking_part(t.asks.pattern))}


_POSSESSIVE = re.compile(r"['’]s?\b")


# The share of the hits a question's name must be in to be the corpus's own name.
COMMON_SHARE = 0.85


# A word that may be a name: capitalised ("GitHub"), or a number run into letters
# ("37signals", "1Password").
_NAME_WORD = re.compile(r"\b(?:[A-Z]|\d+[A-Za-z])[\w-]*")


def common_names(question: str, texts: Sequence[str]) -> frozenset[str]:
    """The question's capitalised words (or numbers run into letters: "37signals") that at
    least `COMMON_SHARE` of `texts` hold (the hits' title, headings and text): the corpus's
    own name ("GitHub", "FastAPI"), which says nothing of what is asked about. Possessives
    are left out ("GitHub's")."""
    if not texts:
        return frozenset()
    caps = {w for t in _NAME_WORD.findall(question) for w in content_words(t)}
    held = [set(content_words(text)) for text in texts]
    return frozenset(w for w in caps if sum(w in h for h in held) >= COMMON_SHARE * len(held))


def focus_words(question: str, common: frozenset[str]) -> frozenset[str]:
    """What the question asks the value *of*: its content words without the words that ask
    for a kind of value (`_ASKING_WORDS`: "how much", "cost"), the
    counted noun of a "how many" question, and `common` (words most passages found share:
    the corpus's own name)."""
    phrase = _counted_phrase(question)
    counted_noun = set(content_words(phrase[-1])) if phrase else set()
    words = set(content_words(_POSSESSIVE.sub("", question))) - counted_noun
    return frozenset(words - _ASKING_WORDS - common)


# How a question writes code: in backticks, as a call (`.scalars()`, `Relationship()`), or as
# a snake_case or dotted name (`exclude_unset`, `session.exec`).
_CODE_NAME = re.compile(
    r"`([^`\n]+)`|([A-Za-z_][\w.]*)\(\)|\b([a-z]\w*_\w+|[a-z]\w*(?:\.[a-z_]\w*)+)\b"
)


def code_names(question: str) -> frozenset[str]:
    """The words of the code the question writes (`_CODE_NAME`): "do I still need to call
    .scalars() ...?" -> {"scalars"}. Read with `content_words`, as units are."""
    return frozenset(
        w for m in _CODE_NAME.finditer(question) for w in content_words(m.group(m.lastindex or 0))
    )


_CAPITALISED = re.compile(r"[A-Z][\w'’-]*")
_WORD_TOKEN = re.compile(r"[A-Za-z][\w'’-]*")


def acronyms(question: str) -> dict[str, frozenset[str]]:
    """The acronyms a run of the question's capitalised words may go by, each with the
    run's content words: "GitHub's Security Incident Response Team" -> {"GSIRT": ...,
    "SIRT": {"security", "incident", "response", "team"}, "IRT": ..., ...} (every sub-run of
    three words or more: two letters match too much by chance). A document that writes
    "SIRT" is about those words although it never spells them out."""
    runs: list[list[str]] = [[]]
    for token in _WORD_TOKEN.findall(question):
        if _CAPITALISED.fullmatch(token):
            runs[-1].append(_POSSESSIVE.sub("", token))
        elif runs[-1]:
            runs.append([])
    found: dict[str, frozenset[str]] = {}
    for run in runs:
        for i, j in itertools.combinations(range(len(run) + 1), 2):
            if j - i >= 3:
                words = run[i:j]
                found["".join(w[0] for w in words).upper()] = frozenset(
                    content_words(" ".join(words))
                )
    return found


_PERIODS = _words("second minute hour day week month year time")


def unbound(
    question: str, contexts: Sequence[tuple[str, str]], common: frozenset[str]
) -> list[str]:
    """Kinds the question asks for that are stated only about something else: every claim
    that states one (`states_asked`, on the claim's own text) shares no focus word of the
    question (`focus_words`) in its text or its section's title and headings (`contexts`:
    (claim text, "title > headings") pairs), or does not name what the question names
    (`_own_names`: every word, or the initials). "How much does a ticket to X cost?" answered
    by a liability cap in dollars, "How many days does the grievance officer have ...?" by a
    30-day notice period, "How much are participants in the GitHub Research Program paid?"
    by the Sponsors program's matching amount. Empty when the question asks no kind or has no
    focus word."""
    phrase = _counted_phrase(question)
    kinds = [t.name for t in asked_types(question)]
    if phrase:
        kinds.append(f"number of {' '.join(phrase)}")
    focus = focus_words(question, common)
    if not focus or not kinds:
        return []
    # a count stated with the thing counted ("The default is only 1 worker" for "How many
    # workers does Gunicorn start if I don't pass -w?") is about it; not a count of days or
    # hours, which any period holds
    counted_thing = bool(phrase) and _singular(phrase[-1]) not in _PERIODS
    if counted_thing and any(states_count(phrase, text) for text, _ in contexts):
        return []
    stating = [(text, where) for text, where in contexts if states_asked(question, text)]
    names = _own_names(question, common)
    # an option's default is read on its own line ("the default of --timeout-keep-alive?")
    options = option_names(question) if _DEFAULT in asked_types(question) else frozenset()
    if not stating or any(
        focus & _bound_words(f"{_stating_part(question, text)} {where}")
        and all(_names(n, f"{text} {where}") for n in names)
        and _states_of_option(question, options, text, where)
        for text, where in stating
    ):
        return []
    about = " ".join(sorted(focus))
    return [f"{k}{_ABOUT_OPEN}{about})" for k in kinds]


# How `unbound` marks a kind stated only about something else: "default value (about: 413
# error ...)", the question's focus words after the kind's name.
_ABOUT_OPEN = " (about: "


def kind_name(kind: str) -> str:
    """The kind's name without what `unbound` adds ("default value (about: ...)" -> "default
    value")."""
    return kind.split(_ABOUT_OPEN, 1)[0]


def refusal_reason(kinds: Sequence[str]) -> str:
    """Why the answer-type rule refused, in words a reader can check against the evidence:
    a kind no claim states, or one the claims state only about something else (`unbound`)."""
    missing = [k for k in kinds if kind_name(k) == k]
    elsewhere = [kind_name(k) for k in kinds if kind_name(k) != k]
    parts = []
    if missing:
        parts.append(
            f"the question asks for a {' and a '.join(missing)} and no evidence found states one"
        )
    if elsewhere:
        parts.append(
            f"the question asks for a {' and a '.join(elsewhere)} and the evidence found "
            "states one only about something else"
        )
    return "refused: " + "; ".join(parts)


# A sentence of at most this many words leans on the one before it for what it speaks of
# ("You will stay logged in on that device for 30 days.", "**Default:** *1*."). Our choice,
# not fitted: Open Collective oc03's is 11 words, Pocket's 30-word notice period speaks for
# itself.
LEANING_WORDS = 12
# A sentence that opens by pointing back ("It lasts 7 days.", "This defaults to 5.").
_POINTS_BACK = re.compile(r"\W*(?:it|its|this|that|these|those|they|their|such)\b", re.I)


def _stating_part(question: str, text: str) -> str:
    """The sentences of a claim that state the asked value (`states_asked`), a short one or
    one that points back with the sentence before it (`LEANING_WORDS`, `_POINTS_BACK`); the
    whole claim when no sentence states it alone. The claim's other sentences do not bind
    the value: Pocket's "We will provide users with notice of any material change ... at
    least thirty days prior" is no trial period because the sentence before it speaks of
    charges."""
    cut = sentences(text)
    parts: dict[int, str] = {}
    for i, sentence in enumerate(cut):
        if states_asked(question, sentence):
            leans = len(_WORD_TOKEN.findall(sentence)) <= LEANING_WORDS
            back = i > 0 and (leans or _POINTS_BACK.match(sentence) is not None)
            parts.update({j: cut[j] for j in range(i - 1 if back else i, i + 1)})
    return " ".join(parts[j] for j in sorted(parts)) if parts else text


# An option or setting the question names: a flag (`--timeout-graceful-shutdown`, `-w`) or
# an identifier of several parts (`MAX_CONTENT_LENGTH`, `response_model_exclude_unset`,
# `app.config`), in backticks or not.
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*|\b[A-Za-z]\w*(?:[_.][A-Za-z0-9]\w*)+\b")


# A dotted word ending in one of these is a site or a file, not an option: "WordPress.com",
# "pyproject.toml", "e.g.".
_NOT_OPTIONS = frozenset(
    [
        "com",
        "org",
        "net",
        "io",
        "dev",
        "ai",
        "co",
        "app",
        "gov",
        "edu",
        "uk",
        "de",
        "fr",
        "js",
        "ts",
        "py",
        "toml",
        "json",
        "yaml",
        "yml",
        "ini",
        "cfg",
        "txt",
        "md",
        "rst",
        "lock",
        "env",
        "html",
        "css",
        "sh",
        "g",
        "e",
    ]
)


def option_names(question: str) -> frozenset[str]:
    """The options and settings the question names (`_OPTION`), each as its words in lower
    case ("--timeout-graceful-shutdown" -> "timeout graceful shutdown"); a site, a file name
    or a dotted word of prose ("WordPress.com", "pyproject.toml", "e.g.") is none."""
    found = {
        _spelled(m.group())
        for m in _OPTION.finditer(question)
        if m.group().rpartition(".")[2].lower() not in _NOT_OPTIONS
    }
    return frozenset(n for n in found if len(n) > 1)


def _spelled(text: str) -> str:
    """`text` as its words in lower case, one space between them: how an option is named
    whether it is written as a flag, a setting or in prose."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _states_of_option(question: str, options: frozenset[str], text: str, where: str) -> bool:
    """Whether a claim that states the asked value states it of an option the question
    names: its section's title and headings name one, or a line of the claim both names one
    and states the value. Uvicorn's settings list one flag a line, so "Default: 5" on the
    line of `--timeout-keep-alive` does not answer "the default of
    --timeout-graceful-shutdown?" on the line below it. True when the question names none."""
    if not options:
        return True
    if any(f" {o} " in f" {_spelled(where)} " for o in options):
        return True
    return any(
        states_asked(question, line) and any(f" {o} " in f" {_spelled(line)} " for o in options)
        for line in text.splitlines()
    )


def _bound_words(text: str) -> set[str]:
    """The content words a claim and its headings hold, an identifier's parts included: a
    setting's heading `SECRET_KEY_FALLBACKS` is about the secret key, a flag
    `--timeout-graceful-shutdown` about graceful shutdown; a word in single quotes
    ("'debug'") is that word."""
    text = _QUOTE_MARK.sub(" ", _POSSESSIVE.sub("", text))
    return set(content_words(text)) | set(content_words(re.sub(r"[_-]", " ", text)))


# A single quote around a word ("Options: 'info', 'debug'"), not inside one ("don't").
_QUOTE_MARK = re.compile(r"(?<!\w)'|'(?!\w)")


def unnamed(
    question: str, contexts: Sequence[tuple[str, str]], common: frozenset[str]
) -> list[str]:
    """The question's names that no claim names (`_own_names` of two words or more once the
    corpus's own name is taken out), in its text or its section's title and headings
    (`contexts`: (claim text, "title > headings") pairs). "How do I opt my public repositories
    out of the GitHub Archive Program?" answered by the trade-controls page's archived
    repositories: the program is found in the corpus, but the answer speaks of something
    else. A name of one word is not required (see `_own_names`)."""
    texts = [f"{text} {where}" for text, where in contexts]
    return [
        n
        for n in _own_names(question, common)
        if len(n.split()) > 1 and not any(_names(n, t) for t in texts)
    ]


def _names(name: str, text: str) -> bool:
    """`text` mentions every word of `name`, or its initials as one word ("Security
    Incident Response Team" by "SIRT")."""
    initials = "".join(w[0] for w in name.split() if w[:1].isupper())
    return mentions(name, text, whole=True) or (
        len(initials) >= 3 and re.search(rf"\b{initials}s?\b", text) is not None
    )


def _own_names(question: str, common: frozenset[str]) -> list[str]:
    """The names of several words the question uses (`text.named_terms`: a program, a team,
    an office) without their words that every hit holds: "GitHub Research Program" ->
    "Research Program". A one-word name is as often the setting as the subject ("In the JWT
    section ...", "run via cron in CI": FastAPI tune3 u02 and u25, answerable, were refused
    when one-word names counted too). Capitalised words in the question's code spans are
    code, not names (`str | None = Header()` named "None Header")."""
    out = []
    for name in named_terms(CODE_SPAN.sub(" ", question)):
        words = name.split()
        rest = [w for w in words if not set(content_words(w)) <= common]
        if len(words) > 1 and rest:
            out.append(" ".join(rest))
    return out


# "What is X?", "What is X used for?", "What does X do / mean?": the question asks what a term
# is. Its term is what follows the verb, up to a preposition that adds context ("in FastAPI",
# "of CORSMiddleware") or the closing verb; a code word in it (`allow_origins`, snake_case, a
# dotted name) is the term when there is one. "What does X set Y to?" asks for a value, not
# what a term is: a "what does" question counts only with its closing "do", "mean" or "stand for".
_CONTEXT = r"(?:\s+(?:in|of|on|with|from|within|inside)\s+[^?]*?)?"
_WHAT_IS = re.compile(
    rf"^\W*what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<term>[^?]+?){_CONTEXT}"
    r"(?:\s+used\s+for|\s+for)?\s*\?*\s*$|"
    rf"^\W*what\s+(?:does|do)\s+(?:an?\s+|the\s+)?(?P<term2>[^?]+?){_CONTEXT}"
    r"\s+(?:do|mean|stand\s+for)\s*\?*\s*$",
    _I,
)
_CODE_LIKE = re.compile(r"`([^`]+)`|\b(\w+_\w+|\w+(?:\.\w+)+)\b")
# What a definition says right after its term: "X means", "X is a/the", "X - ...", "X: ...".
_DEFINES = (
    r"(?:\s+(?:means|refers\s+to|stands\s+for|is\s+(?:an?|the|what|how|used)|are\s+(?:the|used))\b"
    r"|\s*[-–—:]\s)"
)
# The term in the plural, then what any term is, or "are" and what they are.
_PLURAL_DEFINES = rf"(?:s|es)(?:{_DEFINES}|\s+are\s+(?!not\b|also\b)\w+)"
_MARKUP = re.compile(r"^[\s>*+\-\d.)#]*|[*_`\"“”'‘’]")  # list markers, emphasis, quotes


def asked_term(question: str) -> str | None:
    """The term a "what is / what does X do" question asks about, or None."""
    m = _WHAT_IS.search(question)
    if not m:
        return None
    term = m.group("term") or m.group("term2")
    code = _CODE_LIKE.search(term)
    if code:
        return code.group(1) or code.group(2)
    return term.strip() or None


def defines_asked(question: str, text: str) -> bool:
    """Whether `text` opens with the definition of the term the question asks about:
    the term first (after list markers and emphasis), then "means", "is a", "refers to" or a
    dash or colon ('"Dependency Injection" means ...', "`allow_origins` - A list of ..."); or
    the term in the plural, then "are" ("Cookies are small text files ..." for "What is a
    cookie?")."""
    term = asked_term(question)
    if not term:
        return False
    plain = _MARKUP.sub("", text.lstrip()[:300])
    words = re.escape(_MARKUP.sub("", term))
    return bool(re.match(rf"(?:(?:the|an?)\s+)?{words}(?:{_DEFINES}|{_PLURAL_DEFINES})", plain, _I))
