"""The verifier recipe without training: perturbations, splits and data assembly by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from evals.training.verifier import (
    assemble,
    bootstrap_ba,
    change_number,
    clapnq_positives,
    flip_negation,
    held_back,
    names,
    perturb,
    stretch,
    swap_entity,
    wice_partial,
    with_perturbations,
)


def test_change_number_by_hand() -> None:
    assert change_number("The key rotates every 90 days.") == "The key rotates every 117 days."
    assert change_number("It opened in 1998.") == "It opened in 2001."
    assert change_number("Up to 3 retries.") == "Up to 4 retries."
    assert change_number("About 3,000 animals.") == "About 3,900 animals."
    assert change_number("A 2.5 ratio.") == "A 3.5 ratio."
    assert change_number("No digits here.") is None


def test_flip_negation_removes_else_adds() -> None:
    assert flip_negation("The token is not rotated.") == "The token is rotated."
    assert flip_negation("Users cannot log in.") == "Users can log in."
    assert flip_negation("It never expires.") == "It expires."
    assert flip_negation("The token is rotated.") == "The token is not rotated."
    assert flip_negation("Admins can delete it.") == "Admins cannot delete it."
    assert flip_negation("Keys rotate daily.") is None


def test_names_skip_sentence_starts() -> None:
    assert names("The band met Dave Matthews in Paris. Then Paris faded.") == [
        "Dave Matthews",
        "Paris",
    ]


def test_swap_entity_uses_another_name_of_the_passage() -> None:
    evidence = "The album was produced by Brian Eno in Berlin with David Bowie."
    assert swap_entity("It was recorded in Berlin.", evidence) == "It was recorded in Brian Eno."
    assert swap_entity("It was made with Brian Eno.", evidence) == "It was made with Berlin."
    assert swap_entity("It was recorded in Tokyo.", evidence) is None
    assert swap_entity("It was recorded in Berlin.", "Only in Berlin.") is None


def test_stretch_claims_more() -> None:
    assert stretch("Some users may see errors.") == "All users may see errors."
    assert stretch("The cache can expire.") == "The cache always expire."
    assert stretch("The key is rotated.") == "The key is always rotated."
    assert stretch("Keys rotate daily.") == "Only keys rotate daily."
    assert stretch("") is None


def test_perturb_rotates_kinds_and_falls_through() -> None:
    claim, ev = "The key is rotated every 90 days.", "Keys are rotated every 90 days."
    assert perturb(claim, ev, 0) == ("number", "The key is rotated every 117 days.")
    assert perturb(claim, ev, 1) == ("negation", "The key is not rotated every 90 days.")
    # no second name in the evidence: the entity swap falls through to the stretch
    assert perturb(claim, ev, 2) == ("stretch", "The key is always rotated every 90 days.")
    assert perturb(claim, ev, 3) == ("stretch", "The key is always rotated every 90 days.")
    assert perturb("Keys rotate daily.", "x", 0) == ("stretch", "Only keys rotate daily.")


def test_with_perturbations_adds_one_negative_per_positive() -> None:
    pairs = [("It is 5 m.", "It is 5 m tall.", 1), ("It is red.", "It is blue.", 0)]
    out = with_perturbations(pairs)
    assert out == [*pairs, ("It is 6 m.", "It is 5 m tall.", 0)]
    assert with_perturbations(pairs, additions=True) == out  # one positive: no other to add


def test_additions_extend_each_positive_by_the_next_claims_first_sentence() -> None:
    pairs = [
        ("It is 5 m.", "It is 5 m tall.", 1),
        ("Keys rotate daily. They are long.", "Keys rotate daily.", 1),
        ("It is red.", "It is blue.", 0),
    ]
    out = with_perturbations(pairs, additions=True)
    added = out[len(with_perturbations(pairs)) :]
    # the first sentence of the next positive (cyclic), appended; labelled unsupported
    assert added == [
        ("It is 5 m. Keys rotate daily.", "It is 5 m tall.", 0),
        ("Keys rotate daily. They are long. It is 5 m.", "Keys rotate daily.", 0),
    ]
    # a sentence the evidence already holds is no unsupported addition: only the second is
    same = [("A is B.", "A is B. C is D.", 1), ("C is D.", "C is D.", 1)]
    assert with_perturbations(same, additions=True)[4:] == [("C is D. A is B.", "C is D.", 0)]


def test_held_back_is_a_stable_fifth() -> None:
    keys = [f"claim {i}" for i in range(2000)]
    share = sum(held_back(k) for k in keys) / len(keys)
    assert 0.17 < share < 0.23
    assert [held_back(k) for k in keys[:50]] == [held_back(k) for k in keys[:50]]


def test_assemble_caps_each_source_to_an_equal_share() -> None:
    big = [(f"The value is {i}.", f"The value is {i}.", 1) for i in range(100)]
    small = [("A is B.", "A is B.", 1), ("A is C.", "A is B.", 0)]
    out = assemble({"big": big, "small": small}, max_pairs=20)
    # small expands to 3 pairs (one perturbed); big takes the other 17 of 20
    assert len(out) == 20
    assert sum(1 for p in out if p[0].startswith("A is") or p[0].startswith("A is not")) == 3
    assert out == assemble({"big": big, "small": small}, max_pairs=20)
    assert len(assemble({"big": big, "small": small}, max_pairs=10_000)) == 203


def test_readers_for_partial_wice_and_clapnq(tmp_path: Path) -> None:
    wice = tmp_path / "wice.jsonl"
    rows = [
        {"label": "partially_supported", "claim": "C1", "evidence": ["s0", "s1", "s2"],
         "supporting_sentences": [[2, 0], [0]]},
        {"label": "supported", "claim": "C2", "evidence": ["s0"], "supporting_sentences": [[0]]},
    ]  # fmt: skip
    wice.write_text("\n".join(json.dumps(r) for r in rows))
    assert wice_partial(wice) == [("C1", "s0 s2", 0)]
    clap = tmp_path / "clap.jsonl"
    row = {"input": "q", "passages": [{"title": "t", "text": "P"}], "output": [{"answer": "A"}]}
    clap.write_text(json.dumps(row) + "\n" + json.dumps({**row, "output": [{"answer": ""}]}))
    assert clapnq_positives(clap, 0, 2) == [("A", "P", 1)]


def test_bootstrap_interval_holds_the_point() -> None:
    y = np.array([1, 1, 1, 0, 0, 0] * 20)
    pred = np.array([1, 1, 0, 0, 0, 1] * 20)
    point, lo, hi = bootstrap_ba(y, pred, n=200)
    assert point == round(2 / 3, 3) and lo <= point <= hi and hi - lo < 0.3
