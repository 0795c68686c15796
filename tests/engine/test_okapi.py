"""The one BM25: how a stored token string is scored against a query's term groups."""

from __future__ import annotations

from app.recall import okapi


def test_adjacent_repeats_and_a_terms_variants_all_count() -> None:
    scorer = okapi.Scorer({("deploy", "deployed"): 1.0}, average_length=4)
    once = scorer.score(okapi.padded("we deploy on friday"), 4)
    twice = scorer.score(okapi.padded("deploy deploy on friday"), 4)
    variants = scorer.score(okapi.padded("deploy deployed on friday"), 4)
    assert 0 < once < twice == variants


def test_a_rare_term_outweighs_a_common_one() -> None:
    scorer = okapi.Scorer(
        {("hugo",): okapi.fts5_idf(1000, 3), ("user",): okapi.fts5_idf(1000, 400)}, 5
    )
    rare = scorer.score(okapi.padded("the user blogs with hugo"), 5)
    common = scorer.score(okapi.padded("the user user likes tea"), 5)
    assert rare > common > 0


def test_a_term_every_entry_holds_weighs_nothing_for_fts5_but_a_little_per_agent() -> None:
    assert okapi.fts5_idf(10, 10) == 1e-6
    assert 0 < okapi.smooth_idf(10, 10) < okapi.smooth_idf(10, 1)
    assert okapi.smooth_idf(10, 25) == okapi.smooth_idf(10, 10)  # counts clipped to the rows


def test_a_longer_entry_scores_lower_for_the_same_matches() -> None:
    scorer = okapi.Scorer({("tabs",): 1.0}, average_length=6)
    short = scorer.score(okapi.padded("tabs in go"), 3)
    long = scorer.score(okapi.padded("tabs in go code and in every other file"), 9)
    assert short > long > 0
