"""Names and claim parts the cited evidence does not hold (oracles by hand)."""

from __future__ import annotations

from server.query.integrity.coverage import foreign_names, unsupported_parts

SPAN = "The main purpose of a myelin sheath is to increase the speed of impulses along the fiber."
CHUNK = f"Myelin\nneuro/myelin\nIn Canada the Crown appoints judges. {SPAN}"


def test_a_name_the_chunk_never_mentions_is_foreign() -> None:
    assert foreign_names("The Senate of Australia appoints judges.", [CHUNK]) == [
        "Senate",
        "Australia",
    ]
    assert foreign_names("In Canada the Crown appoints the judges.", [CHUNK]) == []
    assert foreign_names("Use `CORSMiddleware` here.", ["Add the `CORSMiddleware`."]) == []
    assert foreign_names("Use `GZipMiddleware` here.", ["Add the `CORSMiddleware`."]) == [
        "GZipMiddleware"
    ]


def test_a_merged_second_half_is_an_unsupported_part() -> None:
    merged = (
        "A myelin sheath increases the speed of impulses along the fiber, and myelin "
        "decreases capacitance and increases electrical resistance across the membrane."
    )
    # split at ", and" and at " and": 1 of 3 and 0 of 4 content words held
    assert unsupported_parts(merged, [SPAN]) == [
        "myelin decreases capacitance",
        "increases electrical resistance across the membrane.",
    ]
    paraphrase = "Myelin sheaths exist mainly to speed up impulses along a fiber."
    assert unsupported_parts(paraphrase, [SPAN]) == []
