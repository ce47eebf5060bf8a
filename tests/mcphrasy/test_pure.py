"""McPhraSy's pure functions, without Beam: matching, noun-phrase pattern, filters, grouping, triplets, sheets,
metrics (hand-checked values), reconciliation and Table 1."""
import itertools
import math

import numpy as np
import pytest

from picforge.sheets import Sheet
from companions.mcphrasy import baselines, clusters, corpus, grouping, match, nps, triplets
from companions.mcphrasy.release import table1
from picforge.errors import InputError


def test_one_pass_match_is_case_insensitive_on_token_boundaries():
    automaton = match.build_automaton(["hair color", "color", "cards"])
    text = "This Hair Color ruined my hair colors; hair color again, and Colorado business-cards."
    found = match.find_phrases(automaton, text)
    assert found["hair color"] == [(5, 15), (39, 49)]
    assert text[5:15] == "Hair Color" and text[39:49] == "hair color"
    assert found["color"] == [(10, 15), (44, 49)]  # "colors" and "Colorado" are not whole-token matches
    assert len(found["cards"]) == 1                # "-" is a token boundary
    assert match.masked(text, found["hair color"]) == \
        "This [MASK] ruined my hair colors; [MASK] again, and Colorado business-cards."


def test_overlapping_occurrences_of_one_phrase_are_masked_once():
    found = match.find_phrases(match.build_automaton(["very very"]), "very very very very very")
    assert found == {"very very": [(0, 9), (10, 19)]}
    assert match.masked("very very very very very", found["very very"]) == "[MASK] [MASK] very"


def test_fold_keeps_offsets_for_characters_whose_lower_case_is_longer():
    automaton = match.build_automaton(["istanbul road"])
    text = "İ Istanbul Road"
    assert match.fold(text) == "İ istanbul road"
    assert match.find_phrases(automaton, text) == {"istanbul road": [(2, 15)]}


def test_phrase_normalisation():
    assert match.normalise_phrase("  Hair   COLOR ") == "hair color"


@pytest.mark.parametrize("words,tags,expected", [
    ("the best place of business cards".split(), ["DT", "JJS", "NN", "IN", "NN", "NNS"], []),  # 4 words: too long
    ("soft paint brushes".split(), ["JJ", "NN", "NNS"], ["soft paint brushes"]),
    ("a Cup of Coffee".split(), ["DT", "NN", "IN", "NN"], ["cup of coffee"]),
    ("larger cups and paint brushes".split(), ["JJR", "NNS", "CC", "NN", "NNS"], ["paint brushes"]),
    ("coffee".split(), ["NN"], []),
])
def test_noun_phrase_pattern(words, tags, expected):
    assert nps.noun_phrases(words, tags) == expected


def test_chunk_spans_are_leftmost_longest_and_disjoint():
    assert nps.chunk_spans(["JJ", "NN", "IN", "JJ", "NNS", "NN", "VBD", "NN", "NN"]) == [(0, 6), (7, 9)]


@pytest.mark.parametrize("phrase,reason", [
    ("e-mail address", "punctuation"), ("my printer", "pronoun"), ("several colors", "pronoun"),
    ("great price", "sentiment"), ("high quality", "sentiment"), ("lots of colors", "uninformative"),
    ("bit of glue", "uninformative"), ("pilot of plane", None), ("paint brushes", None),
])
def test_b1_filters(phrase, reason):
    assert nps.filter_reason(phrase) == reason


def test_top_phrases_break_ties_by_phrase():
    assert grouping.top_phrases({"b c": 2, "a c": 2, "z z": 5, "d d": 1}, 3) == [("z z", 5), ("a c", 2), ("b c", 2)]


def unit(*values):
    v = np.array(values, dtype=float)
    return v / np.linalg.norm(v)


def test_group_around_skips_near_duplicates_and_needs_enough_neighbours():
    vectors = {"seed": unit(1, 0), "twin": unit(1, 0.001), "near": unit(1, 0.3), "mid": unit(1, 1), "far": unit(0, 1)}
    ranked = ["seed", "near", "twin", "mid", "far"]
    assert grouping.group_around("seed", ranked, vectors, size=3) == ["seed", "near", "mid"]
    assert grouping.group_around("seed", ranked, vectors, size=5) is None  # only 3 non-duplicates


def test_category_groups_drop_groups_overlapping_more_than_half():
    # phrases on a circle at these angles (no ties): each seed's group is itself and its three nearest
    angles = dict(zip("abcdef", (0, 0.2, 0.45, 0.75, 1.1, 1.5)))
    vectors = {p: unit(math.cos(t), math.sin(t)) for p, t in angles.items()}
    groups, reasons = grouping.category_groups(list("abcdef"), vectors, max_groups=10, size=4)
    assert groups == [["a", "b", "c", "d"], ["e", "d", "f", "c"]]  # e shares exactly half (c, d) with a's group
    assert reasons == {"overlap": 4}


def test_groups_are_taken_in_turn_from_each_category_up_to_the_target():
    by_category = {c: [f"{c}{i}" for i in range(25)] for c in ("Arts", "Auto", "Grocery", "Office", "Patio")}
    kept = grouping.groups_in_turn(by_category, grouping.PAPER_GROUPS)
    assert [len(kept[c]) for c in sorted(kept)] == [22, 21, 21, 21, 21]
    assert kept["Arts"] == by_category["Arts"][:22] and kept["Patio"] == by_category["Patio"][:21]
    short = grouping.groups_in_turn({"b": ["b0"], "a": ["a0", "a1", "a2"], "c": []}, 106)
    assert short == {"b": ["b0"], "a": ["a0", "a1", "a2"], "c": []}  # fewer groups than the target: all of them
    assert grouping.groups_in_turn({"b": ["b0", "b1"], "a": ["a0", "a1"]}, 3) == {"b": ["b0"], "a": ["a0", "a1"]}


def test_phrase_vectors_average_words_and_skip_unknown_words():
    words = {"paint": np.array([1.0, 0.0]), "brush": np.array([0.0, 1.0])}
    found = grouping.phrase_vectors(["paint brush", "paint roller"], words.get)
    assert list(found) == ["paint brush"]
    assert np.allclose(found["paint brush"], unit(1, 1))


def test_choose_triplet_takes_the_most_distant_pair_and_the_closest_negative():
    contexts = np.stack([unit(1, 0), unit(0.8, 0.6), unit(0, 1)])
    negatives = np.stack([unit(0.6, 0.8), unit(-1, 0)])
    assert triplets.choose_triplet(contexts, negatives) == (2, 0, 0)


def test_negatives_are_drawn_for_each_anchor_and_seed_and_never_hold_the_anchor():
    holds = {3, 4, 5}
    first = triplets.draw_negatives(0, "hair color", 1000, holds.__contains__, size=300)
    assert first == triplets.draw_negatives(0, "hair color", 1000, holds.__contains__, size=300)
    assert len(first) == len(set(first)) == 300 and not holds & set(first)
    assert set(first) != set(triplets.draw_negatives(0, "hair dye", 1000, holds.__contains__, size=300))
    assert set(first) != set(triplets.draw_negatives(1, "hair color", 1000, holds.__contains__, size=300))
    assert sorted(triplets.draw_negatives(0, "hair color", 8, holds.__contains__, size=300)) == [0, 1, 2, 6, 7]


def test_distinct_negatives_count_sentence_and_phrase():
    made = [{"negative": {"sentence_id": s}, "negative_phrase": p} for s, p in (("1:0", "a"), ("1:0", "a"), ("1:0", "b"))]
    assert triplets.distinct_negatives(made) == 2


def test_review_rows_and_their_skip_reasons():
    good = '{"asin": "B1", "reviewText": "Nice  pens.", "category": ["Office Products", "Pens"]}'
    assert corpus.review_document(good, "f:1") == ("kept", {"doc_id": "f:1", "product": "B1",
                                                            "category": "Office Products", "text": "Nice pens."})
    assert corpus.review_document(good, "f:1", "Given")[1]["category"] == "Given"
    assert corpus.review_document('{"asin": "B1", "reviewText": "x"}', "f:1", None, "From File")[1]["category"] == \
        "From File"
    assert corpus.review_document('{"asin": ', "f:2")[0] == "bad-json"
    assert corpus.review_document('{"asin": "B1", "reviewText": ""}', "f:3")[0] == "no-review-text"
    assert corpus.review_document('{"reviewText": "x"}', "f:4")[0] == "no-asin"
    assert corpus.review_document('{"asin": "B1", "reviewText": "x"}', "f:5")[0] == "no-category"
    assert corpus.file_category("/d/Office_Products_5.json.gz") == "Office Products"


# -- metrics, hand-checked ------------------------------------------------------------------------------------------

def brute_force_ami(a, b):
    """AMI (arithmetic normalisation) with the expected MI averaged over every relabelling of b's items."""
    def entropy(labels):
        n = len(labels)
        return -sum(labels.count(x) / n * math.log(labels.count(x) / n) for x in set(labels))

    def mutual_information(x, y):
        n = len(x)
        total = 0.0
        for i in set(x):
            for j in set(y):
                nij = sum(1 for p, q in zip(x, y) if p == i and q == j)
                if nij:
                    total += nij / n * math.log(n * nij / (x.count(i) * y.count(j)))
        return total

    perms = list(itertools.permutations(b))
    expected = sum(mutual_information(a, list(p)) for p in perms) / len(perms)
    return (mutual_information(a, b) - expected) / ((entropy(a) + entropy(b)) / 2 - expected)


def test_metrics_on_a_tiny_case_match_hand_computed_values():
    # A = {1,2}{3,4}, B = {1,2}{3}{4}. Homogeneity 1, completeness 1 - (0.5 ln2)/(1.5 ln2) = 2/3 → V = 0.8.
    # Rand pairs: index 1, expected 2*1/6 = 1/3, max 1.5 → ARI = (1 - 1/3)/(1.5 - 1/3) = 4/7.
    a, b = [0, 0, 1, 1], [0, 0, 1, 2]
    got = clusters.scores(a, b)
    assert got["v_measure"] == pytest.approx(0.8)
    assert got["ari"] == pytest.approx(4 / 7)
    assert got["ami"] == pytest.approx(brute_force_ami(a, b))
    assert clusters.scores(a, a) == pytest.approx({"v_measure": 1.0, "ari": 1.0, "ami": 1.0})


def test_pairwise_agreement_and_means():
    phrases = ["p1", "p2", "p3", "p4"]
    ann = {"ann": dict(zip(phrases, [("A", "equivalent")] * 2 + [("B", "same-kind")] * 2)),
           "bob": dict(zip(phrases, [("x", "equivalent")] * 2 + [("y", "singleton"), ("z", "singleton")])),
           "cy": dict(zip(phrases, [("1", "equivalent")] * 2 + [("2", "same-kind")] * 2))}
    rows = clusters.pairwise_agreement(ann)
    assert [r["annotators"] for r in rows] == [["ann", "bob"], ["ann", "cy"], ["bob", "cy"]]
    assert rows[0]["ari"] == pytest.approx(4 / 7) and rows[1]["ari"] == pytest.approx(1.0)
    assert clusters.mean_scores(rows)["v_measure"] == pytest.approx((0.8 + 1.0 + 0.8) / 3)
    agreed = clusters.reconcile(ann)  # two of three put p3 with p4
    assert clusters.clusters_of(agreed) == [{"phrases": ["p1", "p2"], "kind": "equivalent"},
                                           {"phrases": ["p3", "p4"], "kind": "same-kind"}]


def test_assign_groups_shares_the_first_groups_and_divides_the_rest():
    plan = clusters.assign_groups(["g1", "g2", "g3", "g4", "g5"], ["a", "b"], shared=2)
    assert plan == {"g1": ["a", "b"], "g2": ["a", "b"], "g3": ["a"], "g4": ["b"], "g5": ["a"]}


def sheet(rows):
    return Sheet("ann/g.csv", ["group_id", "phrase", "cluster", "kind"],
                 [(n + 2, dict(zip(["group_id", "phrase", "cluster", "kind"], r))) for n, r in enumerate(rows)])


GROUPS = {"g": ["hot tea", "hot coffee", "iced tea"]}


def test_sheet_labels_accepts_a_well_formed_sheet():
    got = clusters.sheet_labels(sheet([("g", "hot tea", "A", "Same kind"), ("g", "hot coffee", "A", "s"),
                                       ("g", "iced tea", "B", "")]), GROUPS)
    assert got == ("g", {"hot tea": ("A", "same-kind"), "hot coffee": ("A", "same-kind"),
                         "iced tea": ("B", "singleton")})


@pytest.mark.parametrize("rows,message", [
    ([("g", "hot tea", "A", "e"), ("g", "hot coffee", "A", "e")], "iced tea have no row"),
    ([("g", "hot tea", "A", "e"), ("g", "hot tea", "A", "e"), ("g", "iced tea", "B", "")], "row 3: phrase 'hot tea' is labelled twice"),
    ([("g", "hot tea", "", ""), ("g", "hot coffee", "A", ""), ("g", "iced tea", "B", "")], "row 2: cluster label ''"),
    ([("g", "hot tea", "A", "e"), ("g", "hot coffee", "A", "s"), ("g", "iced tea", "B", "")], "row 2: cluster 'A' has kinds"),
    ([("g", "hot tea", "A", ""), ("g", "hot coffee", "A", ""), ("g", "iced tea", "B", "")], "row 2: cluster 'A' has kinds"),
    ([("g", "hot tea", "A", "maybe"), ("g", "hot coffee", "A", "e"), ("g", "iced tea", "B", "")], "row 2: kind 'maybe'"),
    ([("g", "cold tea", "A", ""), ("g", "hot coffee", "B", ""), ("g", "iced tea", "C", "")], "row 2: phrase 'cold tea' is not in group g"),
    ([("h", "hot tea", "A", "")], "column group_id must hold one exported group id"),
])
def test_sheet_labels_refuses_bad_sheets_naming_file_and_row(rows, message):
    with pytest.raises(InputError, match="^ann/g.csv: ") as err:
        clusters.sheet_labels(sheet(rows), GROUPS)
    assert message in str(err.value)


def minutes_sheet(values):
    return Sheet("ann/g.csv", ["phrase", "minutes"], [(n + 2, {"phrase": str(n), "minutes": v}) for n, v in enumerate(values)])


def test_sheet_minutes_take_one_time_per_group():
    assert clusters.sheet_minutes(minutes_sheet(["", "4,5", ""])) == 4.5
    assert clusters.sheet_minutes(minutes_sheet(["6", "6"])) == 6.0
    assert clusters.sheet_minutes(minutes_sheet(["", ""])) is None
    with pytest.raises(InputError, match="^ann/g.csv: row 3: minutes 'soon' is not a number"):
        clusters.sheet_minutes(minutes_sheet(["", "soon"]))
    with pytest.raises(InputError, match="^ann/g.csv: row 2: column minutes holds 2 different times"):
        clusters.sheet_minutes(minutes_sheet(["3", "5"]))


def test_annotation_time_averages_the_timed_sheets():
    got = clusters.annotation_time({"g1": {"ann": 3.0, "bob": None}, "g2": {"ann": 5.0}, "g3": {"cy": 7.0}})
    assert got == {"sheets": 4, "timed_sheets": 3, "mean_minutes_per_group": 5.0,
                   "per_annotator": {"ann": 4.0, "cy": 7.0}, "paper_minutes_per_group": 4.5}


def test_table1_on_a_tiny_release_matches_hand_counts():
    records = [
        {"phrases": ["hot tea", "hot coffee", "iced tea", "paper towels"],
         "clusters": [{"phrases": ["hot coffee", "hot tea"], "kind": "same-kind"},
                      {"phrases": ["iced tea"], "kind": "singleton"}, {"phrases": ["paper towels"], "kind": "singleton"}]},
        {"phrases": ["ink pen", "gel pen", "pen refills"],
         "clusters": [{"phrases": ["gel pen", "ink pen"], "kind": "same-kind"},
                      {"phrases": ["pen refills"], "kind": "singleton"}]},
    ]
    got = table1(records)
    assert got["with_singletons"] == {"groups": 2, "phrases_per_group": 3.5, "clusters_per_group": 2.5,
                                      "cluster_size": 1.4, "overlapping_clusters": 0.8}
    assert got["without_singletons"] == {"groups": 2, "phrases_per_group": 3.5, "clusters_per_group": 1.0,
                                         "cluster_size": 2.0, "overlapping_clusters": 0.0}


def test_holds_phrase_agrees_with_the_automaton():
    text = match.fold("Colorado colors; the COLOR red, hair-color")
    assert match.holds_phrase(text, "color") and match.holds_phrase(text, "hair")
    assert not match.holds_phrase(text, "colo") and not match.holds_phrase(text, "colors red")
    assert match.holds_phrase(text, "color") == bool(match.find_phrases(match.build_automaton(["color"]), text))


@pytest.mark.parametrize("a,b,distance", [("kitten", "sitting", 3), ("", "abc", 3), ("hot tea", "hot tea", 0),
                                          ("hot tea", "iced tea", 4)])
def test_edit_distances_are_levenshtein_over_the_longer_length(a, b, distance):
    matrix = baselines.edit_distances([a, b])
    assert matrix[0, 1] == matrix[1, 0] == pytest.approx(distance / max(len(a), len(b)))
    assert matrix[0, 0] == matrix[1, 1] == 0


def test_complete_linkage_on_a_distance_matrix():
    phrases = ["hot tea", "hot teas", "iced coffee", "iced coffees"]
    assert len(set(baselines.agglomerate(baselines.edit_distances(phrases), 2))) == 2
    labels = baselines.agglomerate(baselines.edit_distances(phrases), 2)
    assert labels[0] == labels[1] != labels[2] == labels[3]
    assert baselines.agglomerate(baselines.edit_distances(phrases), 9) == [0, 1, 2, 3]


def test_paired_permutation_p_matches_exact_enumeration():
    first, second = [0.9, 0.8, 0.7, 0.95, 0.6, 0.85], [0.7, 0.75, 0.72, 0.8, 0.5, 0.8]
    differences = np.subtract(first, second)
    flips = [abs(np.mean(differences * signs)) >= abs(differences.mean()) - 1e-12
             for signs in itertools.product((-1, 1), repeat=len(differences))]
    exact = sum(flips) / len(flips)
    assert baselines.paired_permutation_p(first, second, rounds=20000) == pytest.approx(exact, abs=0.01)
    assert baselines.paired_permutation_p(first, first) == 1.0


def test_mask_vectors_average_the_mask_tokens():
    vectors = np.arange(8, dtype=float).reshape(4, 2)
    masked = "a [MASK] b [MASK]"
    offsets = [(0, 1), (2, 8), (9, 10), (11, 17)]
    assert baselines.mask_vectors(vectors, offsets, masked).tolist() == [4.0, 5.0]
    assert baselines.mask_vectors(vectors[:1], offsets[:1], masked) is None


def test_compare_finds_the_best_method_and_tests_every_pair():
    rows = lambda values: {"gold": [{"v_measure": v, "ari": v, "ami": v} for v in values]}  # noqa: E731
    compared = baselines.compare({"a": rows([0.9] * 8), "b": rows([0.5] * 8), "c": rows([0.5, 0.6] * 4)}, rounds=999)
    assert compared["scores"]["a"]["gold"] == {"v_measure": 0.9, "ari": 0.9, "ami": 0.9}
    assert compared["best"]["gold"]["ari"]["best"] == "a" and compared["best"]["gold"]["ari"]["next"] == "c"
    assert compared["best"]["gold"]["ari"]["significant"]  # 8 groups all one way: p = 2/256 < 0.05
    assert len(compared["pairs"]) == 3 * 3
