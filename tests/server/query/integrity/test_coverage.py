"""Names and claim parts the cited evidence does not hold (oracles by hand)."""

from __future__ import annotations

from server.query.integrity.coverage import foreign_names, misplaced_names, unsupported_parts

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


def test_a_dotted_acronym_and_its_bare_form_name_the_same_thing() -> None:
    span = "Some merchants in the US don't accept Discover."
    assert foreign_names("Not many merchants accept Discover in the U.S.", [span]) == []
    assert (
        foreign_names("Many merchants in the US take Visa.", ["Stores in the U.S. take Visa."])
        == []
    )
    assert foreign_names("Not many merchants in the U.K. accept Discover.", [span]) == ["U.K"]


def test_a_genus_written_by_its_initial_is_no_foreign_name() -> None:
    span = "H pylori infection may be an important cause of gastric cancer."
    assert foreign_names("Infection with Helicobacter pylori causes gastric cancer.", [span]) == []
    dotted = "Killing was seen in SRGP-1 mutant C. elegans."
    assert foreign_names("It kills cells in mutant Caenorhabditis elegans.", [dotted]) == []
    # another species, or the initial of another genus, is still foreign
    assert foreign_names("Infection with Helicobacter felis causes gastric cancer.", [span]) == [
        "Helicobacter"
    ]
    assert foreign_names("Infection with Campylobacter pylori is common.", [span]) == [
        "Campylobacter"
    ]


def test_a_roman_numeral_the_span_writes_in_digits_is_no_foreign_name() -> None:
    span = "The tax cut the incidence of type 2 diabetes by 5%."
    assert foreign_names("The tax cut type II diabetes incidence in India.", [span]) == ["India"]
    assert foreign_names("The tax cut type III diabetes incidence.", [span]) == ["III"]


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


def test_a_merged_half_opening_with_a_quotation_mark_is_judged_on_its_own() -> None:
    merged = (
        'A myelin sheath increases the speed of impulses, and "myelin sheath" and '
        '"sheath cells" are terms coined by anatomists long after the discovery.'
    )
    # " and" before an opening quotation mark splits too: the last part's content words
    # (sheath, cells, terms, coined, anatomists, discovery ...) hold only "sheath" in the span
    assert unsupported_parts(merged, [SPAN]) == [
        '"sheath cells" are terms coined by anatomists long after the discovery.'
    ]


def test_a_name_in_another_names_place_is_misplaced() -> None:
    sirens = "Delmar is convinced the women were Sirens and transformed Pete into the toad ."
    # Pete is the one transformed; the women were Sirens (women 1 vs 0.49, convinced 0.7 vs
    # 0.34, Delmar 0.49 vs 0: 2.19 against 0.83)
    assert misplaced_names("Delmar is convinced the women were Pete.", [sirens]) == [
        "Pete where the span says Sirens"
    ]
    germany = "Germany went through its worst inflation in 1923 ."
    assert misplaced_names("Then November went through its worst inflation.", [germany]) == [
        "November where the span says Germany"
    ]
    # the same names in their own places, an alias of a span name, a shortened name
    assert misplaced_names("Delmar thinks the women were Sirens.", [sirens]) == []
    assert misplaced_names("Sirens, Delmar is convinced, were the women.", [sirens]) == []
    assert misplaced_names("Then Germany had its worst inflation.", [germany]) == []
    un = "BRICS countries would work with each other through the United Nations ."
    assert misplaced_names("BRICS countries would work through the UN.", [un]) == []
    logan = "Mount Logan is the highest mountain in Canada ."
    assert misplaced_names("In Canada, Logan is the highest mountain.", [logan]) == []
    assert misplaced_names("In Canada, Mount Denali is the highest mountain.", [logan]) == [
        "Mount Denali where the span says Mount Logan"
    ]
