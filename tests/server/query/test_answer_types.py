"""Which kind of value a question asks for, and whether an answer states one (by hand)."""

from __future__ import annotations

import pytest

from server.query.answer_types import (
    acronyms,
    asked_term,
    asked_types,
    code_names,
    common_names,
    counted,
    defines_asked,
    focus_words,
    gives_reason,
    instructs,
    instructs_closely,
    kind_name,
    leads,
    option_names,
    refusal_reason,
    stated_kinds,
    states_asked,
    states_asked_kind,
    unbound,
    unnamed,
    unstated,
)


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("How much does the Team plan cost per user per month?", ["price"]),
        # "how long can X be?" asks for a length; "how long can X be valid?" a duration
        ("How long can each poll option be?", []),
        ("How long can a token be valid?", ["duration"]),
        ("How much prize money do the winners receive?", ["price"]),
        ("What does Basecamp Big cost per month?", ["price"]),
        ("What does the cost include?", []),  # what it covers
        ("What VAT rate will I be charged in Germany?", ["percentage"]),
        ("What is the rate limit of the API?", []),
        ("How long is the preservation period?", ["duration"]),
        ("How long is the free trial?", ["duration"]),
        ("How long is a username allowed to be?", []),  # a length
        ("What's the default requests-per-minute limit?", ["default value"]),  # what's
        ("What status code does it use if I don't specify one?", ["default value"]),
        ("What is the maximum size of a single WebSocket message?", ["size"]),
        ("How large does the middleware let the buffer grow?", ["size"]),
        ("How large is the team?", []),  # no data
        ("Is there a default timeout after which a task is cancelled?", ["duration"]),
        ("What is the maximum file size I can push?", ["size"]),
        ("How much storage do packages get on the free plan?", ["size"]),
        ("How much Git LFS storage comes with a free account?", ["size"]),  # named storage
        ("How much of my time does the review take?", []),
        ("What uptime percentage does the SLA guarantee?", ["percentage"]),
        ("How long does the service keep audit log events?", ["duration"]),
        ("On what date will the new terms take effect?", ["date"]),
        ("What is the DPA Coverage Date for GitHub Models?", ["date"]),  # a named date
        ("Since which FastAPI release can I use dataclasses?", ["version"]),
        ("Which version of Python do I need?", ["version"]),
        ("What do the release notes say about dataclasses?", []),
        ("What is the update policy for dates in logs?", []),
        ("How often is the transparency report published?", ["frequency"]),
        ("How many times a day does the job run?", []),  # a count of times: `counted`
        ("What is the phone number of the designated agent?", ["phone number"]),
        ("What email address reaches the security team?", ["email address"]),
        # a contact detail asked for, not merely named
        ("Is there a phone number I can call for support?", ["phone number"]),
        ("Does Mozilla end up with my full email address?", []),
        ("What happens to my email address when I delete my account?", []),
        ("posting someone's phone number in a repo", []),
        ("My command prompts for an email address. How do I test it?", []),
        ("What fee does the platform take on sponsorships?", ["fee"]),
        ("What share of the sale price goes to developers?", ["fee"]),
        ("What fee waiver form do I file?", []),
        ("When does the cookie expire by default?", ["default value"]),
        ("Can I make a path parameter optional by giving it a default of None?", []),
        # a count is its own check (`counted`); "when" is left to the refusal model
        ("How many members can an organization have?", []),
        ("When does the cookie expire?", []),
        ("How long is the Great Wall of China?", []),  # a length, not a duration
        ("How big is Texas?", []),
        ("How do I enable CORS?", []),
        # asked for, or merely named: a clause asking how or why asks for a way or a reason
        ("Which CLI option sets the port?", ["command-line flag"]),
        ("Can a CLI argument fall back to several environment variables?", []),
        ("How can an argument's default value be computed at runtime?", []),
        ("Why doesn't the traceback show local values by default?", []),
        ("How do I opt out of the telemetry collected by default?", []),
        ("I use Codespaces. How do I opt out of the telemetry collected by default?", []),
        ("How do I declare form fields, and which version added it?", ["version"]),
        ("How do I read a header? What is its default value?", ["default value"]),
        # the asked thing after "what is the" and up to three words that qualify it
        ("What is the default network timeout uv uses?", ["duration", "default value"]),
        ("What is the maximum duration of a cooldown?", ["duration"]),
        ("What is the lock wait, in seconds?", ["duration"]),  # the unit asked for
        ("What is the exact minimum Rust version required?", ["version"]),
        ("What is the minimum Linux kernel version it needs?", ["version"]),
        ("What is the versioning scheme?", []),
        ("What is Gunicorn's default worker timeout?", ["duration"]),  # a possessive qualifies
        # a length of a text, name or URL, asked for by its bound
        ("What is the maximum URL length the server accepts?", ["length"]),
        ("What is the min length of a password?", ["length"]),
        ("Is there a length limit on titles?", ["length"]),
        ("How do I enforce a maximum length for an option?", []),  # a way, not a value
        # paid time off is an amount of time, not of money
        ("How much fully paid leave does a primary caregiver get?", ["duration"]),
        ("How much notice must I give before I resign?", ["duration"]),
        ("How much paid time off do I get?", ["duration"]),
        ("How much are contractors paid per hour?", ["price"]),
        # a sum named by what it is
        ("What is the annual deductible on the PPO plan?", ["amount of money"]),
        ("What is the spending limit on my company card?", ["amount of money"]),
        ("How much is the home office budget?", ["amount of money"]),
        ("What is the dual-use research allowance about?", []),
        ("Above what amount do I have to upload a receipt?", ["amount of money"]),
        ("What amount of time do I have to respond?", []),
        ("Which share of the premium does the company pay?", ["fee"]),
        ("What portion of the sale goes to the developer?", ["fee"]),
        ("How much does the leave insurance cost?", ["price"]),
        # a sum named by what it is paid as
        ("What is the minimum payout?", ["amount of money"]),
        # a cap asked for
        ("What's the most Mozilla can be liable for under the Terms?", ["amount of money"]),
        ("What's the most they'd have to pay me if I sue?", ["amount of money"]),
        ("What's the most common reason for a refund?", []),  # no sum owed
        ("What is the minimum amount for a cross-border payout?", ["amount of money"]),
        ("What is the maximum refund I can get?", ["amount of money"]),
        ("What is the maximum number of payments per month?", []),  # a count, `counted`
        ("What is the minimum amount of time between payouts?", []),
        # a default asked "out of the box"; a size by "the biggest X"
        ("What's the biggest message it accepts out of the box?", ["size", "default value"]),
        ("Does it work out of the box?", []),
        ("What is the maximum number of files I can upload?", []),
        # a command, asked for by name
        ("What Alembic command should I run to make a migration?", ["command"]),
        ("What is the command to start the dev server?", ["command"]),
        ("Which command-line flag enables HTTP/2?", ["command-line flag"]),
        # an exit code asked for; an HTTP status code is no kind (answered by "the last set")
        ("What exit status does my program return when I raise Abort()?", ["exit code"]),
        ("What return code means success?", ["exit code"]),
        ("Which status code ends up in the response?", []),
        ("How do I set the exit code?", []),
        # a coming release asked for by when; not a date that follows from a condition
        ("When will FastAPI 1.0 be released?", ["release date"]),
        ("When is the pipeline API expected to become stable?", ["release date"]),
        ("When will Stripe pay out my first sponsorship money?", []),
        ("When will GitHub put my content back up?", []),
        ("When is request.state available?", []),
    ],
)
def test_the_kinds_a_question_asks_for(question: str, kinds: list[str]) -> None:
    assert [t.name for t in asked_types(question)] == kinds


def test_a_default_is_stated_by_name_or_by_what_happens_when_nothing_is_set() -> None:
    q = "When does the cookie expire by default?"
    assert unstated(q, ["By default, the cookie lasts for the browser session."]) == []
    assert unstated(q, ["Unless you set `max_age`, it expires when the browser closes."]) == []
    assert unstated(q, ["If you don't pass `expires`, the browser drops it on exit."]) == []
    assert unstated(q, ["You can set cookies on the response object."]) == ["default value"]


def test_a_frequency_is_a_period_a_count_of_times_or_a_word_for_either() -> None:
    q = "How often does the server send keep-alive pings?"
    assert unstated(q, ["It sends a ping every 15 seconds when the stream is idle."]) == []
    assert unstated(q, ["A job runs the tests once a week."]) == []
    assert unstated(q, ["Reports are published twice a year."]) == []
    assert unstated(q, ["The index is rebuilt daily."]) == []
    assert unstated(q, ["Pings keep proxies from closing the connection."]) == ["frequency"]
    # a span of time is no frequency
    assert unstated(q, ["A ping times out after 30 seconds."]) == ["frequency"]
    # read through emphasis: "every *three* years" is "every three years"
    sabbatical = "How often can I take a sabbatical?"
    assert unstated(sabbatical, ["Every *three* years you may take a sabbatical."]) == []
    assert unstated(sabbatical, ["A sabbatical lasts *six* weeks."]) == ["frequency"]


def test_an_amount_of_money_is_a_sum_a_share_or_nothing_to_pay() -> None:
    q = "What is the annual deductible on the PPO plan?"
    assert unstated(q, ["The deductible is $1,500 per person."]) == []
    assert unstated(q, ["The plan covers 100% of the deductible."]) == []
    assert unstated(q, ["The PPO plan is offered through Blue Cross."]) == ["amount of money"]


def test_states_asked_kind_takes_a_default_given_and_no_count() -> None:
    q = "How many workers does it start if I don't pass --workers?"  # a count and a default
    assert states_asked_kind(q, "By default, it starts a single worker.")
    assert states_asked_kind(q, "The number of workers defaults to 1.")
    # a value after "default ... is" or before "is the default"
    assert states_asked_kind(q, "It uses the default one for the server, which is `1`.")
    assert states_asked_kind(q, "`1` is the default worker count.")
    assert not states_asked_kind(q, "When a setting has a default value, it is not required.")
    # the default named, not given; a count alone: no
    assert not states_asked_kind(q, "An image holds the default program to run.")
    assert not states_asked_kind(q, "You could start 4 workers with `--workers 4`.")
    assert states_asked("How many workers does it start?", "You could start 4 workers.")
    assert states_asked_kind("Which version added it?", "Added in version 0.99.0.")
    assert not states_asked_kind("How do I add it?", "Added in version 0.99.0.")  # none asked


_PAYOUT_DAY = "What day of the month are payouts sent?"
_ALEMBIC = "What Alembic command generates a migration?"


@pytest.mark.parametrize(
    ("question", "claim", "unstated_kinds"),
    [
        # a date is also a day of the month or of the week
        (_PAYOUT_DAY, "You will receive payouts on the 22nd of the month.", []),
        (_PAYOUT_DAY, "Payouts are sent on the third Thursday of the month.", []),
        (_PAYOUT_DAY, "Payouts are sent at the start of each cycle.", ["date"]),
        (_PAYOUT_DAY, "You will receive payouts monthly.", ["date"]),
        # a command is stated as code: a program with its arguments, a shell block
        (_ALEMBIC, "Run `alembic revision --autogenerate` to create it.", []),
        (_ALEMBIC, "Generate it with:\n```console\n$ alembic upgrade head\n```", []),
        (_ALEMBIC, "You can use Alembic directly for now.", ["command"]),
        # code that is no command: a call, a name, Python
        (_ALEMBIC, "Call `SQLModel.metadata.create_all(engine)` first.", ["command"]),
        (_ALEMBIC, "Set `target_metadata` in `env.py`.", ["command"]),
        (_ALEMBIC, "```python\nimport alembic\n```", ["command"]),
    ],
)
def test_a_date_and_a_command_are_stated_in_their_own_forms(
    question: str, claim: str, unstated_kinds: list[str]
) -> None:
    assert unstated(question, [claim]) == unstated_kinds


def test_a_fee_is_an_amount_or_a_share() -> None:
    q = "What fee does the platform take on sponsorships?"
    assert unstated(q, ["A service fee of 3% per transaction is deducted."]) == []
    assert unstated(q, ["The fee is $5 per month."]) == []
    assert unstated(q, ["Sponsors support the people who maintain open source."]) == ["fee"]
    assert leads(q, "A service fee of 3% per transaction is deducted.")


def test_an_email_address_is_stated_as_written_or_spelled_out() -> None:
    q = "What email address reaches the security team?"
    assert unstated(q, ["Write to security@example.com."]) == []
    assert unstated(q, ["security(at)example(dot)com relays to the team on duty."]) == []
    assert unstated(q, ["Security reports are handled by email."]) == ["email address"]
    assert leads(q, "security(at)example(dot)com") and not leads(q, "Write to us by email.")


def test_a_claim_states_the_kind_or_the_question_goes_unanswered() -> None:
    price = "How much does the Team plan cost?"
    assert unstated(price, ["The Team plan costs $4 per user per month."]) == []
    assert unstated(price, ["Public repositories are free for everyone."]) == []
    assert unstated(price, ["The Team plan includes code review tools."]) == ["price"]
    since = "Since which FastAPI release can I use dataclasses?"
    assert unstated(since, ["This is available since FastAPI version `0.67.0`."]) == []
    assert unstated(since, ["Add support for `dataclasses`. PR #3577."]) == ["version"]
    # a release's notes are headed by its version; a price is never read from a heading
    notes = "Release Notes 0.67.0"
    assert unstated(since, ["Add support for `dataclasses`. PR #3577."], [notes]) == []
    assert unstated(price, ["The Team plan includes tools."], ["Pricing $4"]) == ["price"]
    # a compound ending in "free" names no price (site-policy tune2 q18, "How much are
    # participants ... paid?", was answered by "a royalty-free, fully paid-up ... license")
    assert unstated(price, ["You grant a royalty-free, fully paid-up license."]) == ["price"]
    size = "What is the maximum file size I can push?"
    assert unstated(size, ["Files larger than 100 MB are blocked."]) == []
    # a number of another kind is not a size: a liability cap in dollars
    assert unstated(size, ["Liability is limited to $500.00 USD."]) == ["size"]
    duration = "How long does GitHub keep audit log events?"
    assert unstated(duration, ["Events are kept for 90 days."]) == []
    assert unstated(duration, ["Audit logs list the events of an organization."]) == ["duration"]
    # a value set in code or in inline-code or strong markers states it too
    assert unstated(duration, ["Default: `timedelta(days=31)` (`2678400` seconds)"]) == []
    assert unstated(duration, ["Events are kept for **90** days."]) == []
    assert unstated(duration, ["Set `max_age` to keep events."]) == ["duration"]
    length = "What is the maximum length of a repository name?"
    assert unstated(length, ["Names can be at most 100 characters long."]) == []
    assert unstated(length, ["Use `Query(max_length=50)`."]) == []
    assert unstated(length, ["Names must be unique within an account."]) == ["length"]
    date = "In what year did the war end?"
    assert unstated(date, ["The king died in 1786."]) == []
    assert unstated(date, ["The king may have died young."]) == ["date"]  # 'may' is no month
    assert unstated("What uptime percentage is guaranteed?", ["Uptime is 99.9%."]) == []
    phone = "What is the phone number of the agent?"
    assert unstated(phone, ["Call +1 (415) 555-0100."]) == []
    assert unstated(phone, ["Write to 88 Colin P Kelly Jr St, San Francisco."]) == ["phone number"]
    # none to call answers "Is there a phone number ...?"
    assert unstated(phone, ["We do not offer telephone support."]) == []


def test_a_count_in_a_clause_asking_how_is_no_count_asked() -> None:
    """ "How can I count how many times ..." asks for a way to count; "How many ..., and how
    do I change it?" still asks for the number in its first clause."""
    way = "How can I count how many times a flag like --verbose was repeated?"
    assert unstated(way, ["Use the `count` parameter to make an option a counter."]) == []
    # "what happens" asks for a consequence: the default's words in it ask for no value
    happens = "What happens by default if I leave the ticket quantity empty?"
    assert unstated(happens, ["Tickets will be unlimited if you leave this field empty."]) == []
    both = "How many workers does it start, and how do I change it?"
    assert unstated(both, ["Pass --workers to change it."]) == ["number of workers"]
    assert unstated(both, ["It starts one worker; pass --workers to change it."]) == []


def test_any_claim_of_the_answer_may_state_it() -> None:
    claims = ["The Team plan includes code review tools.", "It costs 4 dollars a seat."]
    assert unstated("How much does the Team plan cost?", claims) == []
    assert unstated("How do I enable CORS?", []) == []  # nothing asked, nothing missing


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("How many members can an organization have?", ("members",)),
        (
            "How many free GitHub Actions minutes does a plan get?",
            ("free", "GitHub", "Actions", "minutes"),
        ),
        ("how many people live in Oslo", ("people", "live")),  # runs into the verb: any word counts
        ("What is the maximum number of routes a router can hold?", ("routes",)),
        ("Which variable sets the number of workers?", ()),  # asks for a variable, not a count
        ("How do I enable CORS?", ()),
        # a verb after "how many" names no counted thing (Open Collective oc36)
        ("What happens if I don't fill in how many are available?", ()),
        # the counted thing ends where its owner begins
        ("How many browser sessions one user can have?", ("browser", "sessions")),
    ],
)
def test_the_phrase_a_count_question_counts(question: str, phrase: tuple[str, ...]) -> None:
    assert counted(question) == phrase


def test_a_count_is_stated_by_a_number_with_the_counted_noun_in_one_claim() -> None:
    q = "How many free accounts may one person have?"
    assert unstated(q, ["A person may maintain no more than one free Account."]) == []
    # a number without the noun answers something else: a notice period for a count of times
    times = "How many times per year can I change my username?"
    assert unstated(times, ["We give at least 30 days' notice of changes."]) == ["number of times"]
    assert unstated(times, ["You may change it twice a year."]) == []
    assert unstated(times, ["Usernames can be changed.", "Notice is 30 days."]) == [
        "number of times"
    ]  # the number and the noun in two claims do not state it
    assert unstated("How many collaborators can I add?", ["Add unlimited collaborators."]) == []
    assert unstated("How many repositories can I create?", ["Create a repository."]) == [
        "number of repositories"
    ]
    # answered by a list, not a number: never checked
    assert unstated("How many ways can I sign in?", ["Use SSH or HTTPS."]) == []


def test_a_count_is_a_number_near_the_counted_noun() -> None:
    q = "What is the maximum number of member packages a workspace can contain?"
    # numbers and the noun in one claim, but the numbers count something else
    far = "It runs at once, while both commands accept a flag to pick a workspace member."
    assert unstated(q, [far]) == ["number of member packages"]
    assert unstated(q, ["A workspace holds up to 50 member packages."]) == []  # 3 words on
    assert unstated(q, ["Limits: members: 50."]) == []  # a written number after the noun
    assert unstated(q, ["The members of one workspace share a lockfile."]) == [
        "number of member packages"
    ]  # "one" counts the workspaces, after the noun
    # a partitive between the number and the noun ("5 of your own public posts")
    pin = "How many posts can I pin to my profile?"
    assert unstated(pin, ["You can feature up to 5 of your own public posts on top."]) == []
    assert unstated(pin, ["Up to 5 of the people you follow see pinned posts."]) == [
        "number of posts"
    ]


@pytest.mark.parametrize(
    ("question", "text", "states"),
    [
        ("How long until access tokens expire?", "Tokens expire after 30 minutes.", True),
        ("How long until access tokens expire?", "A token grants access to the API.", False),
        ("How many free accounts may I have?", "One person may hold one free Account.", True),
        ("How many free accounts may I have?", "Accounts are free of charge.", False),
        ("What is a bearer token?", "Tokens expire after 30 minutes.", False),  # nothing asked
    ],
)
def test_states_asked_is_one_claim_giving_the_asked_kind(
    question: str, text: str, states: bool
) -> None:
    assert states_asked(question, text) is states


@pytest.mark.parametrize(
    ("question", "texts", "missing"),
    [
        (
            "Which environment variable sets the number of workers?",
            ["Use the --workers option to set the number of workers."],
            ["environment variable"],
        ),
        (
            "Which environment variable sets the number of workers?",
            ["Set WEB_CONCURRENCY to the number of workers."],
            [],
        ),
        ("Where are environment variables commonly placed?", ["In a .env file."], []),  # not a name
        (
            "What command-line flag enables reload?",
            ["Reload is on in development."],
            ["command-line flag"],
        ),
        ("What command-line flag enables reload?", ["Pass --reload to enable it."], []),
        (
            "What keep-alive timeout does the server use?",
            ["The server keeps connections."],
            ["duration"],
        ),
        ("What keep-alive timeout does the server use?", ["It waits 5 seconds."], []),
        (
            "What exit code does `check` return when it only finds warnings?",
            ["It returns a detailed report if there are any errors since 1.2.0."],
            ["exit code"],
        ),
        ("What exit code does it return?", ["By default, `code` is `0`."], []),
        ("What exit code does it return?", ["It exits with a non-zero code on failure."], []),
        ("What exit code does it return?", ["Call sys.exit(1) on failure."], []),
        # a version or a pull request's number is no time
        (
            "When is uvicorn 1.0 expected to be released?",
            ["Tag version like `0.13.3`.", "PR #1569 by @tiangolo.", "Bigger releases come."],
            ["release date"],
        ),
        ("When will 1.0 be released?", ["Version 0.100.0 (2023-07-07)."], []),
        # a count named, then given in the same clause
        (
            "How many browser sessions can one user have?",
            ["The maximum number of browser sessions per user defaults to 10."],
            [],
        ),
        ("How many workers does it start?", ["The number of workers is 4."], []),
        (
            "How many workers does it start?",
            ["The number of workers is configurable. Version 2 is out."],
            ["number of workers"],
        ),
        # a sum with its currency's code first
        ("How much am I paid?", ["A monthly retainer of USD 8,333.34 per month."], []),
        # a span of time given vaguely, by its ends, in words with digits or in emphasis
        ("How long did it take?", ["It took years (2001-2006) to relicense."], []),
        ("How long did it take?", ["It took almost a decade."], []),
        ("How long did it take?", ["The work ran from 2001 to 2006."], []),
        ("How long do I have?", ["Upon thirty (30) days written notice."], []),
        ("How long do you keep it?", ["We keep it for _up to two years_."], []),
        ("How long did it take?", ["It was relicensed in 2006."], ["duration"]),
        ("How long did it take?", ["The 2019-12-05 release relicensed it."], ["duration"]),
        # a date is a year, not a version's part, a pull request's number or a count
        ("On what date does it take effect?", ["It takes effect in May."], []),
        ("In what year was the policy adopted?", ["It was adopted in 2019."], []),
        ("In what year was the policy adopted?", ["See PR #1569 for it."], ["date"]),
        ("In what year was the policy adopted?", ["It shipped in 0.100.0."], ["date"]),
        ("In what year was the policy adopted?", ["It listens on port 8000."], ["date"]),
        ("When will 1.0 be released?", ["It is planned for next year."], []),
        ("When will 1.0 be released?", ["There is no fixed date yet."], []),
    ],
)
def test_names_flags_and_timeouts_are_kinds_of_value(
    question: str, texts: list[str], missing: list[str]
) -> None:
    assert unstated(question, texts) == missing


def test_a_duration_leads_a_how_long_is_question_without_deciding_refusal() -> None:
    question = "How long are the certificates valid?"
    assert leads(question, "They are short-lived (about 3 months).")
    assert not leads(question, "Before that, certificates were sold by third parties.")
    # "how long is / are" may ask for a length: the refusal rule does not read it as a duration
    assert asked_types(question) == []
    assert unstated(question, ["Before that, certificates were sold."]) == []
    # a question that asks for a duration outright leads with one the same way
    assert leads("How long does a token stay valid?", "A token expires after 30 minutes.")


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What does the allow_origins setting of CORSMiddleware do?", "allow_origins"),
        ("What is Dependency Injection in FastAPI?", "Dependency Injection"),
        ("What is a GitHub Sponsors account?", "GitHub Sponsors account"),
        ("What are scopes used for?", "scopes"),
        ("What does CORS stand for?", "CORS"),
        ("What does app.include_router do?", "app.include_router"),
        # a value, not a term's meaning
        ("What does fastapi dev set FASTAPI_ENV to?", None),
        ("Which port does it use?", None),
    ],
)
def test_asked_term_by_hand(question: str, term: str | None) -> None:
    assert asked_term(question) == term


def test_defines_asked_wants_the_term_first_then_a_definition() -> None:
    q = "What is Dependency Injection in FastAPI?"
    assert defines_asked(q, '**"Dependency Injection"** means, in programming, that ...')
    assert defines_asked(q, "Dependency Injection is a way to declare what code needs.")
    assert not defines_asked(q, "With the Dependency Injection system, you can tell FastAPI")
    assert not defines_asked(q, "Dependency Injection is also available in routers.")
    q = "What does the allow_origins setting of CORSMiddleware do?"
    assert defines_asked(q, "* `allow_origins` - A list of origins that may call the API.")
    assert not defines_asked(q, "None of `allow_origins` and `allow_methods` can be `['*']`.")
    assert not defines_asked("Which port does it use?", "Port - the TCP port.")
    # the term in the plural: what they are
    cookie = "What is a cookie?"
    assert defines_asked(cookie, "Cookies are small text files stored by your browser.")
    assert not defines_asked(cookie, "Cookies are not shared with third parties.")
    assert not defines_asked(cookie, "Google | `SSID` | This cookie is used to track.")
    assert not defines_asked(cookie, "Cookie banners are shown in some regions.")


TICKET = "How much does a ticket to GitHub Universe cost?"
GRIEVANCE = "How many days does GitHub's Grievance Officer for India have to respond?"


@pytest.mark.parametrize(
    ("question", "focus"),
    [
        # the asking words ("how much", "cost") and the corpus's name left out
        (TICKET, {"ticket", "universe"}),
        # the counted noun ("days") and the possessive too
        (GRIEVANCE, {"grievance", "officer", "india", "respond"}),
        ("What is the maximum file size for GitHub Pages sites?", {"page", "site"}),
        ("How much does GitHub cost?", set()),  # nothing but the name: nothing to bind
        # what a sum or time off is named by is what the value is of
        (
            "What is the annual deductible on the medical plan?",
            {"annual", "deductible", "medical", "plan"},
        ),
        ("How much paid leave does a caregiver get?", {"leave", "caregiver", "get"}),
        ("What VAT rate applies in Germany?", {"vat", "appli", "germani"}),  # keys (`word_key`)
        ("How long is the free trial?", {"free", "trial"}),
        # a word a pattern only rules out asks nothing
        ("What does the cost include?", {"include"}),
        ("What does it use if I don't pass a scope?", {"dont", "pass", "scope"}),
        ("How large does it let the buffer grow?", {"let", "buffer", "grow"}),
        # an exit code or a release is what the value is of, not a word that asks for it
        ("What exit code does the check return?", {"exit", "code", "check", "return"}),
        ("When is the API expected to become stable?", {"api", "expected", "stable"}),
    ],
)
def test_focus_words_say_what_the_value_is_of(question: str, focus: set[str]) -> None:
    assert focus_words(question, frozenset({"github"})) == focus


def test_a_value_stated_about_something_else_leaves_the_question_unanswered() -> None:
    common = frozenset({"github"})
    cap = ("GitHub's liability is limited to $5,000.", "Terms > Limitation of Liability")
    notice = ("The breach must be cured within thirty (30) days.", "Agreement > Termination")
    assert unbound(TICKET, [cap], common) == ["price (about: ticket universe)"]
    assert unbound(GRIEVANCE, [notice], common) == [
        "number of days (about: grievance india officer respond)"
    ]
    # the claim or its section names what the value is of, by the question's own name
    # (bar the words every hit holds): answered
    assert unbound(TICKET, [("A ticket costs $99.", "Universe > Events")], common) == []
    assert unbound(TICKET, [("Entry costs $99.", "GitHub Universe > Registration")], common) == []
    # a ticket to something unnamed may be another event's
    assert unbound(TICKET, [("A ticket costs $99.", "Events")], common) == [
        "price (about: ticket universe)"
    ]
    # every word of a name: site-policy tune2 q18 was answered by the Sponsors program's
    # matching amount ("... in the Program") for the GitHub Research Program's pay
    paid = "How much are participants in the GitHub Research Program paid?"
    fund = ("GitHub can match sponsorship up to $5,000 in the Program.", "GitHub Sponsors")
    assert unbound(paid, [fund], common) == ["price (about: participant program research)"]
    # a count of a thing stated with that thing is about it, whatever else the question
    # says; a count of days is not (any period has days: the grievance notice above)
    workers = "How many workers does Gunicorn start if I don't pass -w?"
    one = ("The default is only 1 worker, which is not what you want.", "Deploying > Running")
    assert unbound(workers, [one], frozenset({"gunicorn"})) == []
    assert unbound(workers, [("The default port is 8000.", "Deploying > Running")], common)
    # or its initials: "SIRT" names the Security Incident Response Team
    sirt = "What email address reaches GitHub's Security Incident Response Team?"
    relay = ("security(at)github(dot)com relays email to the humans on duty for SIRT.", "")
    assert unbound(sirt, [relay], common) == []
    # a one-word name is often the setting, not the subject (FastAPI tune3 u02)
    jwt = "In the JWT section, what expiration time is given for a token?"
    week = ("After a week, the token will be expired.", "Security > OAuth2")
    assert unbound(jwt, [week], common) == []
    # one stating claim about the subject is enough, beside one about something else
    assert unbound(TICKET, [cap, ("Universe passes are $99.", "")], common) == []


def test_stated_kinds_counts_the_asked_kinds_a_text_gives() -> None:
    q = "How long does a session last by default?"  # a duration and a default value
    assert stated_kinds(q, "Default: `timedelta(days=31)` (`2678400` seconds)") == 2
    assert stated_kinds(q, "Sending the cookie (the default) keeps it alive.") == 1
    assert stated_kinds(q, "Sessions are signed.") == 0
    assert stated_kinds("How many workers start?", "It starts 4 workers.") == 1  # a count


def test_a_setting_named_as_an_identifier_binds_by_its_parts() -> None:
    q = "Can I rotate the secret key, and since which version?"
    note = ("Added in version 3.1.", "Configuration > `SECRET_KEY_FALLBACKS`")
    assert unbound(q, [note], frozenset()) == []
    other = ("Added in version 3.1.", "Configuration > `MAX_COOKIE_SIZE`")
    assert unbound(q, [other], frozenset()) == ["version (about: key rotate secret since)"]


def test_a_value_asked_of_a_named_option_is_bound_on_that_options_line() -> None:
    # Uvicorn v33: the default on the line of another flag does not answer
    q = "What's the default value of --timeout-graceful-shutdown if I don't set it?"
    keep_alive = "`--timeout-keep-alive <int>` - Close idle connections. **Default:** *5*."
    graceful = "`--timeout-graceful-shutdown <int>` - Seconds to wait for shutdown."
    both = (f"{keep_alive}\n{graceful}", "Settings > Timeouts")
    assert unbound(q, [both], frozenset()) == [
        "default value (about: dont timeout-graceful-shutdown)"
    ]
    own = ("`--timeout-graceful-shutdown <int>` - Seconds to wait. **Default:** *5*.", "")
    assert unbound(q, [own], frozenset()) == []
    # the option may be named by the section, or not at all
    under = ("Seconds to wait. Default: 5.", "Settings > `--timeout-graceful-shutdown`")
    assert unbound(q, [under], frozenset()) == []
    # named in prose, the value is bound by the sentence that states it (and the one before
    # a bare note), not by the claim's other sentences
    # only a default is read so: "Since which version can I use --ws websockets-sansio?" is
    # answered by a release note that names no flag (Uvicorn v31)
    since = "Since which uvicorn version can I use --ws websockets-sansio?"
    release = ("The SansIO implementation was released in Uvicorn 0.35.0.", "WebSockets")
    assert unbound(since, [release], frozenset()) == []
    plain = "What's the default graceful shutdown timeout?"
    assert unbound(plain, [own], frozenset()) == []
    assert unbound(plain, [both], frozenset()) == [
        "duration (about: graceful shutdown)",
        "default value (about: graceful shutdown)",
    ]


def test_a_value_is_bound_by_the_sentence_that_states_it() -> None:
    # Mozilla z27: the thirty days are a notice period, the charge is another sentence's
    q = "Pocket Premium has a free trial. How many days does the trial last before I get charged?"
    claim = (
        "You will not be charged unless you have opted for a paid subscription plan. We will"
        " provide users with notice of any material change at least thirty days prior.",
        "Subscriptions",
    )
    assert unbound(q, [claim], frozenset()) == [
        "number of days (about: charged free get last pocket premium trial)"
    ]
    trial = ("The free trial lasts 30 days. After it you are charged.", "Subscriptions")
    assert unbound(q, [trial], frozenset()) == []
    # a short sentence, or one that points back, is read with the sentence before it
    # (Open Collective oc03)
    login = "After I click the login link in my email, how long before I sign in again?"
    stay = "We send you an email with a link. You will stay logged in on that device for 30 days."
    assert unbound(login, [(stay, "Security")], frozenset()) == []
    lasts = "Free trials are offered. It lasts for the thirty days that follow the day you sign up."
    assert unbound(q, [(lasts, "")], frozenset()) == []
    # a word in single quotes is that word (Uvicorn v05)
    level = "What level is used by default, and is there one more verbose than debug?"
    options = "`--log-level <str>` - Options: 'info', 'debug', 'trace'. Default: 'info'."
    assert unbound(level, [(options, "Settings")], frozenset()) == []


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Default of --timeout-keep-alive?", {"timeout keep alive"}),
        ("Is MAX_CONTENT_LENGTH set in app.config?", {"max content length", "app config"}),
        ("Does -w or e.g. a plain word count?", set()),
        # a site or a file is no option (Legalmattic w20: "my WordPress.com blog")
        ("Is it set in pyproject.toml for my WordPress.com blog?", set()),
    ],
)
def test_option_names_are_flags_and_identifiers_of_several_parts(
    question: str, names: set[str]
) -> None:
    assert option_names(question) == names


def test_the_corpus_name_is_the_one_nearly_every_hit_holds() -> None:
    q = "What is the minimum length Flask requires for SECRET_KEY in Jinja?"
    hits = [f"Flask page {i}." for i in range(7)] + ["Jinja templates and WSGI servers."]
    assert common_names(q, hits) == {"flask"}  # 7 of 8 hits: at least COMMON_SHARE (0.85)
    assert common_names(q, hits[1:]) == {"flask"}  # 6 of 7 (0.857)
    assert common_names(q, hits[2:]) == set()  # 5 of 6 (0.833): a topic, not the corpus
    assert common_names(q, []) == set()
    # a name that opens with digits ("37signals": content words "37" and "signal")
    share = "Which share of the premium does 37signals pay?"
    pages = ["37signals pays the premium.", "At 37signals we meet twice a year."]
    assert common_names(share, pages) == {"37", "signal"}


def test_code_in_the_question_is_no_name_a_value_must_be_bound_to() -> None:
    q = "How much does the `Team Plan` tier cost per user?"
    priced = [("The tier costs $4 per user per month.", "Pricing")]
    assert unbound(q, priced, frozenset({"github"})) == []
    named = "How much does the Team Plan tier cost per user?"  # a name in prose still counts
    assert unbound(named, priced, frozenset({"github"})) == [
        "price (about: per plan team tier user)"
    ]


def test_unbound_leaves_other_questions_to_the_other_rules() -> None:
    common = frozenset({"github"})
    claim = [("GitHub's liability is limited to $5,000.", "Limitation of Liability")]
    assert unbound("How much does GitHub cost?", claim, common) == []  # no focus word
    assert unbound("Who organises GitHub Universe?", claim, common) == []  # asks no kind
    # no claim states a price: `unstated` refuses it, not this rule
    assert unbound(TICKET, [("Universe is a conference.", "")], common) == []


def test_a_name_of_the_question_no_claim_names_is_unnamed() -> None:
    # site-policy tune3 v15: the program is in the corpus, the answer speaks of archived
    # repositories in sanctioned regions
    q = "How do I opt my public repositories out of the GitHub Archive Program?"
    common = frozenset({"github"})
    archived = ("Public repositories were downgraded to archived read-only ones.", "Trade")
    assert unnamed(q, [archived], common) == ["Archive Program"]
    program = ("GitHub may copy public repositories for the Archive Program.", "Terms")
    assert unnamed(q, [archived, program], common) == []
    assert unnamed(q, [(archived[0], "Terms > GitHub Archive Program")], common) == []
    # initials and dotted capitals name it too
    sirt = "What email address reaches the Security Incident Response Team?"
    assert unnamed(sirt, [("Write to SIRT at the address below.", "")], common) == []
    uk = "Does the UK Bribery Act only cover government officials?"
    assert unnamed(uk, [("The U.K. Bribery Act is broader.", "Anti-bribery")], common) == []
    assert unnamed(uk, [("The FCPA covers officials.", "Anti-bribery")], common) == [
        "UK Bribery Act"
    ]
    # code in the question names nothing ("None Header" was read as a name)
    code = "I declared `user_agent: str | None = Header()`. How does FastAPI read the header?"
    header = ("Header converts underscores to hyphens.", "Header Parameters")
    assert unnamed(code, [header], frozenset({"fastapi"})) == []


def test_a_name_of_one_word_beyond_the_corpus_name_is_not_required() -> None:
    # "GitHub Sponsors" less the corpus's own name is one word: the setting, often
    q = "How do I change the bank account my GitHub Sponsors payouts go to?"
    claim = ("Payouts go to the bank account you gave us.", "Additional Terms")
    assert unnamed(q, [claim], frozenset({"github"})) == []
    assert unnamed(q, [claim], frozenset()) == ["GitHub Sponsors"]


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Do I still need to call .scalars() on the result?", {"scalar"}),
        ("Which Relationship() argument makes it many-to-many?", {"relationship"}),
        ("Does `exclude_unset` work with session.exec?", {"exclude_unset", "exec", "session"}),
        ("What is a cookie?", set()),
    ],
)
def test_code_names_are_the_words_of_the_code_a_question_writes(
    question: str, names: set[str]
) -> None:
    assert code_names(question) == names


@pytest.mark.parametrize(
    ("question", "text", "reason"),
    [
        (
            "Why does the example pass check_same_thread=False?",
            "We need to disable it because each request could use several threads.",
            True,
        ),
        (
            "Why does the example pass check_same_thread=False?",
            "There's only one change here, the `check_same_thread` in the `connect_args`.",
            False,
        ),
        ("How come my tables are empty?", "Import the models first, otherwise none exist.", True),
        ("How do I disable it?", "We disable it because each request uses threads.", False),
        (
            "Why can't my browser JavaScript read the custom header?",
            "A backend at `localhost` (because we don't give a port, the browser assumes 80).",
            False,
        ),
    ],
)
def test_a_unit_that_gives_a_reason_may_lead_a_why_question(
    question: str, text: str, reason: bool
) -> None:
    assert gives_reason(question, text) is reason
    assert leads(question, text) is reason


def test_acronyms_of_runs_of_three_capitalised_words_or_more() -> None:
    found = acronyms("What email reaches GitHub's Security Incident Response Team?")
    assert found["SIRT"] == {"securiti", "incident", "response", "team"}  # keys: `word_key`
    assert set(found) == {"GSI", "GSIR", "GSIRT", "SIR", "SIRT", "IRT"}
    assert acronyms("Does the Privacy Act apply?") == {}  # two words: "PA" matches by chance
    assert acronyms("what is a cookie?") == {}


def test_a_setting_in_units_of_time_states_its_default_as_a_duration() -> None:
    """Reference docs name the unit with the setting and give the default as a bare number
    (FastAPI's CORSMiddleware `max_age`): that is a duration stated."""
    q = "If I don't set max_age, how long will browsers cache the preflight response?"
    max_age = "`max_age` - Sets a maximum time in seconds for browsers to cache CORS responses."
    assert unstated(q, [max_age + " Defaults to `600`."]) == []
    assert (
        unstated("What is the default timeout?", ["Idle time in milliseconds (default: 30000)."])
        == []
    )
    assert unstated("What keep-alive timeout is used?", ["In seconds. **Default:** *20.0*."]) == []
    # the unit without a default given, or a default that is no number: not stated
    assert unstated(q, [max_age]) == ["duration", "default value"]
    assert unstated(q, [max_age + " Defaults to `None`."]) == ["duration"]
    # a number that is no default is not read as the duration
    assert unstated(q, [max_age + " See RFC 7234 section 5."]) == ["duration", "default value"]


def test_an_option_holding_a_count_states_its_default_count() -> None:
    """A count named by "number of" / "how many" and the thing counted, then its default given
    as a number, across the sentence end reference docs put there."""
    workers = "How many worker processes does uvicorn start if I don't pass --workers?"
    env = "Defaults to the `$WEB_CONCURRENCY` environment variable if available, or 1."
    assert unstated(workers, ["`--workers <int>` - Number of worker processes. " + env]) == []
    puma = "How many Puma worker processes does Mastodon's web server run by default?"
    forks = (
        "Specific to Puma, this variable determines how many different processes Puma forks into."
    )
    assert unstated(puma, [forks + " Defaults to `2`."]) == []
    fields = "How many multipart form fields will Flask parse per request by default?"
    parts = "`MAX_FORM_PARTS` controls how many `multipart/form-data` fields can be parsed."
    assert unstated(fields, [parts + " It is set to 1000 by default."]) == []
    # no default number, or the count of another thing: not stated
    assert unstated(puma, [forks])[-1] == "number of Puma worker processes"
    assert unstated(workers, ["The number of threads defaults to 5."]) == [
        "number of worker processes"
    ]


def test_the_refusal_reason_says_whether_the_value_is_missing_or_about_something_else() -> None:
    """The reason a reader sees in `repairs` names the kinds, never `unbound`'s bag of focus
    words, and does not say "no evidence states one" when a claim states one about another
    thing (a liability cap in dollars for a ticket's price)."""
    assert kind_name("price (about: ticket universe)") == "price"
    assert kind_name("number of days") == "number of days"
    assert refusal_reason(["duration"]) == (
        "refused: the question asks for a duration and no evidence found states one"
    )
    assert refusal_reason(["price (about: ticket universe)"]) == (
        "refused: the question asks for a price and the evidence found states one only about "
        "something else"
    )
    both = refusal_reason(["duration", "default value (about: graceful shutdown)"])
    assert both == (
        "refused: the question asks for a duration and no evidence found states one; the "
        "question asks for a default value and the evidence found states one only about "
        "something else"
    )
    assert "about:" not in both


@pytest.mark.parametrize(
    ("question", "text", "says_how"),
    [
        # a purpose clause sharing a word with the question, then what to use or do
        (
            "How do I write middleware that runs for every request?",
            'To create a middleware you use the decorator `@app.middleware("http")`.',
            True,
        ),
        (
            "How can I stream events from an endpoint?",
            "To stream SSE, use `yield` and set `response_class`.",
            True,
        ),
        (
            "How do I turn off the optimizer?",
            "In order to disable the optimizer completely, you can set `noDiscovery: true`.",
            True,
        ),
        # the purpose is something else the question does not ask about
        (
            "How do I write middleware that runs for every request?",
            "To install the package, use pip.",
            False,
        ),
        # no instruction after the purpose clause
        (
            "How do I write middleware that runs for every request?",
            "To create a middleware is easy.",
            False,
        ),
        # an instruction that opens otherwise, and a question that asks no how-to
        (
            "How do I write middleware that runs for every request?",
            "You can add middleware to applications.",
            False,
        ),
        ("What is middleware?", "To create a middleware you use the decorator.", False),
    ],
)
def test_a_unit_that_says_how_to_do_the_asked_thing_instructs(
    question: str, text: str, says_how: bool
) -> None:
    assert instructs(question, text) is says_how


def test_the_verb_and_the_kind_a_question_asks_with_bind_nothing() -> None:
    # FastAPI dev f99 (unanswerable): another variable that "sets" something is not about
    # workers; "variable" and "sets" are how the question asks, not what it asks about
    q = "Which environment variable sets the number of workers for the server?"
    env = ("Before importing your app, the CLI sets the `APP_ENV` environment variable.", "")
    assert unbound(q, [env], frozenset()) == ["environment variable (about: server worker)"]
    workers = ("`WEB_CONCURRENCY` sets the number of worker processes of the server.", "")
    assert unbound(q, [workers], frozenset()) == []


@pytest.mark.parametrize(
    ("text", "close"),
    [
        ("To stream Server-Sent Events (SSE), use `yield` in your function.", True),
        # the question's verb, and only one more word of it ("SSE" is not "Server-Sent Events")
        ("To stream SSE with FastAPI, use `yield` in your function.", False),
        # another verb for the same words
        ("To send Server-Sent Events, use `EventSourceResponse`.", False),
        # no instruction after the purpose clause
        ("To stream Server-Sent Events is easy.", False),
    ],
)
def test_a_unit_instructs_closely_when_its_purpose_is_the_asked_task(
    text: str, close: bool
) -> None:
    q = "How do I quickly stream Server-Sent Events from an endpoint?"
    assert instructs_closely(q, text) is close
    assert not instructs_closely("What are Server-Sent Events?", text)
