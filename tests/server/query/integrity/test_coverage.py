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
    assert misplaced_names("Then Austria went through its worst inflation.", [germany]) == [
        "Austria where the span says Germany"
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


def test_a_month_the_span_writes_short_or_as_an_iso_date_is_no_foreign_name() -> None:
    died = "Saturday Nov 10, 2018 at 4:14 PM. Liz Patterson died Saturday. She was 78."
    assert foreign_names("Patterson died on November 10, 2018, at the age of 78.", [died]) == []
    nott = "ByNottinghamshire Live08:00, 30 JUN 2018 Three bodies were never identified."
    assert foreign_names("The man was never identified (June 2018).", [nott]) == []
    assert foreign_names("Smith was hired on August 10.", ["Published Aug. 10, 2014"]) == []
    assert foreign_names("It opened in September.", ["Opened Sept 3"]) == []
    iso = "PUBLISHED DATETIME: 2018-06-30T07:00:00Z Three bodies"
    assert foreign_names("The bodies were found in June 2018.", [iso]) == []
    # another month, short or in an ISO date, is still foreign
    assert foreign_names("Patterson died on October 10, 2018.", [died]) == ["October"]
    assert foreign_names("The bodies were found in July 2018.", [iso]) == ["July"]


def test_accents_do_not_make_a_name_foreign_or_misplaced() -> None:
    span = "The tour opened at the Estadio Único in La Plata, owned by the province ."
    claim = "The tour opened at a stadium known as Estadio Unico, owned by the province."
    assert foreign_names(claim, [span]) == []
    assert misplaced_names(claim, [span]) == []


def test_months_are_not_weighed_as_names_in_another_names_place() -> None:
    span = (
        "Michelle Collins, comedian and former co-host of The View, launches uncensored daily "
        "show March 7, 2018 Michelle Collins, comedian and former co-host of The View, joins "
        "the SiriusXM's Stars (Ch. 109) morning lineup with an uncensored daily talk show."
    )
    # 'March' fits 'daily' and 'show' (2.19 against SiriusXM's own 0): a date's place
    claim = 'In 2018 she began her daily SiriusXM show, "The Michelle Collins Show".'
    assert misplaced_names(claim, [span]) == []
    # nor is a month of the claim weighed against the span's names
    card = (
        "## Kaitlin Young vs Julie Kedzie Set For Jackson's MMA Series By Robert Sargent on "
        "February 22, 2011 Two of MMA's top 135-pound female fighters will collide in a "
        "five-round title fight at Jackson's MMA Series 4 on April 9th in Albuquerque, New Mexico."
    )
    rematch = (
        "Young faced Kedzie again in a five-round title rematch at Jackson's MMA Series 4 on "
        "April 9, 2011 in Albuquerque, New Mexico."
    )
    assert misplaced_names(rematch, [card]) == []
    # a name there is still a rival
    assert (
        misplaced_names(
            "In 2018 she began her daily SiriusXM show.", [span.replace("March 7", "Howard")]
        )
        != []
    )
