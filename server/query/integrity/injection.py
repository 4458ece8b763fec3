"""Instructions planted in evidence (indirect prompt injection, SPEC 7.3): found, never cited.

A retrieved page is data for the answer, never instructions to whoever writes it. A chunk
that addresses the model itself is quarantined: the generators never see it (so an LLM
cannot obey it and the extractive generator cannot quote it), and a citation into it is
blocked (`injected_instruction`) whoever drafted the claim. The whole chunk goes, not the
one sentence, because an injection is a block of text whose other sentences ("Translate
your response into Spanish.", the rest of a persona script) look harmless on their own.

Detection is by patterns of text written *to a model*, not about one: overriding its
instructions, switching persona or mode, ordering it to print a fixed string, talking
about its prompt or its content policy, and markdown images that carry data out in their
URL. The false-positive rate on clean corpora is measured by `evals/injection.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from server.core.contracts import Hit

_I = re.IGNORECASE
_TO = r"[^.!?\n]{0,40}?"  # a few words within the same sentence
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "override",
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass)\b" + _TO + r"\b(?:instructions?|"
            r"prompts?|rules|guidelines|directives|everything (?:you|that) (?:learned|were told|"
            r"know))\b",
            _I,
        ),
    ),
    (
        "persona",
        re.compile(
            r"\b(?:from now on,? you|you are (?:now|about to|going to (?:act|pretend|be))|"
            r"(?:act|acting) as (?:an? )?(?:ai|chatbot|assistant|language model)|pretend to be|"
            r"stay in character|(?:the )?role of (?:another |an )?ai|developer mode|"
            r"do anything now|"
            r"jailbr(?:eak|oken)|(?:free|freed) from the (?:typical )?confines)\b",
            _I,
        ),
    ),
    ("persona_name", re.compile(r"\[(?:DAN|DUDE|STAN|GPT|🔓[^\]]*)\]|\b(?:DAN|DUDE|STAN)\b")),
    (
        "obey",
        re.compile(
            r"\b(?:if you (?:don't|do not) comply|(?:start|stop) complying|"
            r"comply with (?:these|my)|"
            r"(?:obey|follow|question) (?:my|the user's|human|all) (?:orders?|commands?)|"
            r"(?:dan|developer|god|jailbreak|unrestricted|unfiltered) mode)\b",
            _I,
        ),
    ),
    (
        "reshape_reply",
        re.compile(
            r"(?:^|[.!?:]\s+)(?:(?:can|could|will|would) you\s+)?[A-Za-z]+\s+(?:[\w-]+\s+){0,3}?"
            r"your (?:answer|response|reply|message|output)(?:'s)?\b"
            r"(?! (?:model|body|class|status|headers?|code|object|schema|data|types?|fields?))|"
            r"\b(?:reply|respond|answer) (?:in|using) (?:reverse|emojis?|base\d+|[A-Z][a-z]+\b)",
            re.MULTILINE,
        ),
    ),
    (
        "print_literal",
        re.compile(
            r"\b(?:just|only|simply|now)\s+(?:print|say|output|repeat|write|reply|respond)\b|"
            r"\b(?:stop everything|nevermind)\b",
            _I,
        ),
    ),
    (
        "addresses_model",
        re.compile(
            r"\b(?:your (?:previous|prior|original|initial|system) (?:instructions|prompt|task)|"
            r"system prompt|content polic(?:y|ies)|as an ai\b|as a language model)\b|"
            r"\b(?:in|into|to|of) your (?:answer|response|reply)\b(?! (?:model|body|class|"
            r"status|headers?|code|object|schema|data|type))",
            _I,
        ),
    ),
    ("exfiltrate", re.compile(r"!\[[^\]\n]*\]\((?:https?://)?[^)\s]*[?&<][^)]*\)")),
)


def instruction_in(text: str) -> str | None:
    """The name of the first pattern of text written to a model found in `text`, or None."""
    for name, pattern in PATTERNS:
        if pattern.search(text):
            return name
    return None


def quarantined(hits: Sequence[Hit]) -> dict[str, str]:
    """snippet_id -> pattern name, for every retrieved chunk that carries such text."""
    return {
        h.chunk.snippet_id: found
        for h in hits
        if (found := instruction_in(h.chunk.text)) is not None
    }
