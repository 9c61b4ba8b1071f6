"""Every strength claim of the docs as its samples show it (ckc_env/evaluation/claims.py).

A published gain is the pooled figure over its samples (the files named beside it, each a sample
on seeds of its own), and a place at a table is "first" only where the pooled lead's interval
clears 0, "tied" otherwise. ``CLAIMS`` holds each such sentence with the files it rests on: the
figures and the verdict word are formatted from the files and must be the docs' words, so a claim
cannot outgrow its samples without this test failing. ``test_every_first_place_in_the_docs_is_a_claim``
finds the sentences that call a player first and asks each to be one of ``CLAIMS``. The tables of
best responses and ratings (docs/evaluation.md) are their files' too.
"""

import json
import re
from pathlib import Path

import pytest

from ckc_env.evaluation import claims
from ckc_env.evaluation.claims import pooled, pooled_difference, pooled_lead, signed, verdict
from ckc_env.evaluation.statistics import Stat

ROOT = Path(__file__).resolve().parents[1]
NOT_RESULTS = {"docs/RULES.md", "docs/cli.md", "docs/env_card.md"}  # the rules, the parsers' help, the env card
DOCS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
DOCS = [doc for doc in DOCS if doc not in NOT_RESULTS]
AGENT = "checkpoints/ppo_all_counts_mixed_34p"
RESULTS = "docs/results"


def files(pattern: str) -> list[str]:
    found = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(f"{RESULTS}/{pattern}"))
    assert found, f"no result files {pattern}"
    return found


def paths(pattern: str) -> list[Path]:
    return [ROOT / f for f in files(pattern)]


def interval(stat: Stat) -> str:
    return f"{stat.mean:.3f} [{stat.low:.3f}, {stat.high:.3f}]"


def deals(samples) -> str:
    return f"{sum(sample[3] for sample in samples):,}"


def gain(pattern: str):
    """The pooled paired difference of the files ``pattern`` names, as the docs quote it."""
    return lambda: [signed(pooled_difference(paths(pattern)))]


def lead(pattern: str, first: str = AGENT, second: str = "bayes_v2", games: bool = True):
    """The verdict, the pooled lead of ``first`` over ``second`` at the lineup files ``pattern``
    names and (``games``) the deals it rests on."""

    def figures() -> list[str]:
        found = paths(pattern)
        stat = pooled_lead(found, first, second)
        total = [deals([claims.lead_sample(f, first, second) for f in found])] if games else []
        return [verdict(stat), signed(stat), *total]

    return figures


def verdicts(pattern: str) -> str:
    return verdict(pooled_lead(paths(pattern), AGENT, "bayes_v2"))


def level_or_above(pattern: str, games: bool = True):
    """``above`` where the pooled paired difference clears 0 (``below`` under it, ``level with``
    otherwise), the figure and (``games``) the deals."""

    def figures() -> list[str]:
        found = paths(pattern)
        stat = pooled_difference(found)
        word = "above" if stat.low > 0 else "below" if stat.high < 0 else "level with"
        total = [deals([claims.paired_sample(f) for f in found])] if games else []
        return [word, signed(stat), *total]

    return figures


def side(pattern: str) -> str:
    return level_or_above(pattern, games=False)()[0]


def held(tag: str) -> dict:
    return json.loads((ROOT / RESULTS / "best_response" / tag / "best_response.json").read_text())["held_out"]


def br(tag: str, model: str, figure: str = "gain") -> str:
    """A best response's held-out figure (``gain`` over the player, or ``over_start``), as quoted."""
    found = held(tag)[model][figure]
    return signed(Stat(found["mean"], *found["ci95"]))


def common(words) -> str:
    """The word every count earns, or ``not the same`` (the sentence then fails)."""
    found = set(words)
    return found.pop() if len(found) == 1 else "not the same"


MIXED = "mixed_34p_vs_mixed_bayes_v2_{}p_seed*.json"
SEAT = "mixed_34p_vs_bayes_v2_{}p_seed*.json"
SEARCH = "search/*search_vs_agent_bayes_v2_{}p.json"
CLONE = "mixed_34p_vs_clone_{}p_*_seed*.json"
BAYES_V1_5P = [
    "mixed_34p_vs_bayes_v1_5p_seed9009.json",
    "mixed_34p_vs_clone_5p_bayes_v1_seed9900.json",
    "mixed_34p_vs_clone_5p_bayes_v1_seed9901.json",
]

CLAIMS = [
    # the strongest agent at the mixed tables: pooled leads over bayes_v2
    (
        "docs/training.md",
        "In the mixed tables (balanced seatings) its place, pooled over the samples, is {} at 3 players "
        "(lead over bayes_v2 {} on {} deals",
        lead(MIXED.format(3)),
    ),
    ("docs/training.md", "16,008), {} at 4 ({} on {} deals", lead(MIXED.format(4))),
    ("docs/training.md", "+0.026]) and {} at 5 ({} on {} deals", lead(MIXED.format(5))),
    (
        "docs/agents.md",
        "Pooled over the samples, its lead over bayes_v2 makes it {} at the 3-player mixed table ({} on {} deals)",
        lead(MIXED.format(3)),
    ),
    ("docs/agents.md", "{} at the 4-player one ({} on {} deals)", lead(MIXED.format(4))),
    ("docs/agents.md", "and {} at the 5-player one ({} on {} deals", lead(MIXED.format(5))),
    (
        "docs/agents.md",
        "pooled over the samples, {} at the 3-player mixed table, {} at the 4-player one and {} at the 5-player "
        "one, and in bayes_v2's seat at bayes_v2's tables {} bayes_v2 at 3 players, {} it at 4 and {} it at 5",
        lambda: [verdicts(MIXED.format(n)) for n in (3, 4, 5)] + [side(SEAT.format(n)) for n in (3, 4, 5)],
    ),
    # in bayes_v2's seat at bayes_v2's tables
    (
        "docs/training.md",
        "In bayes_v2's seat on the same deals, pooled over the samples, the agent is {} bayes_v2 at 3 players "
        "({} on {} deals)",
        level_or_above(SEAT.format(3)),
    ),
    ("docs/training.md", "{} it at 4 ({} on {})", level_or_above(SEAT.format(4))),
    ("docs/training.md", "and {} it at 5 ({} on {})", level_or_above(SEAT.format(5))),
    (
        "docs/agents.md",
        "in bayes_v2's seat on the same deals, pooled over the samples: {} bayes_v2 at 3 players ({} on {} deals)",
        level_or_above(SEAT.format(3)),
    ),
    ("docs/agents.md", "{} it at 4 ({} on {} deals)", level_or_above(SEAT.format(4))),
    ("docs/agents.md", "and {} it at 5 ({} on {} deals;", level_or_above(SEAT.format(5))),
    (
        "docs/training.md",
        "pooled over the three samples, the agent's edge over bayes_v2 in its seat is {} on {} deals",
        lambda: level_or_above(SEAT.format(3))()[1:],
    ),
    (
        "docs/agents.md",
        "it wins {} against four bayes_v1 at 5 players, pooled over three samples ({} games;",
        lambda: [
            interval(claims.pooled_rate([ROOT / RESULTS / f for f in BAYES_V1_5P])),
            deals([claims.rate_sample(ROOT / RESULTS / f) for f in BAYES_V1_5P]),
        ],
    ),
    # what RL added to the cloned start, pooled per count over three tables and two seeds
    (
        "docs/agents.md",
        "what the four runs added is {} at 5 players, {} at 4 and {} at 3",
        lambda: [signed(pooled_difference(paths(CLONE.format(n)))) for n in (5, 4, 3)],
    ),
    (
        "docs/training.md",
        "what the four fine-tuning runs added, pooled over each count's six samples, is {} at 5 players, {} at 4 and {} at 3",
        lambda: [signed(pooled_difference(paths(CLONE.format(n)))) for n in (5, 4, 3)],
    ),
    (
        "docs/evaluation.md",
        "Read this way, the strongest agent is {} at the mixed table of every count and {} bayes_v2 in its seat at "
        "every count",
        lambda: [common(verdicts(MIXED.format(n)) for n in (3, 4, 5)), common(side(SEAT.format(n)) for n in (3, 4, 5))],
    ),
    # the best responses (docs/results/best_response/)
    (
        "docs/evaluation.md",
        "300,000 steps from the strongest agent found a policy that wins {} over bayes_v2 in its seat, {} over the "
        "agent it started from (which itself is {} over bayes_v2 on these deals)",
        lambda: [
            br("bayes_v2_3p_from_agent", "best"),
            br("bayes_v2_3p_from_agent", "best", "over_start"),
            br("bayes_v2_3p_from_agent", "start"),
        ],
    ),
    (
        "docs/tournaments.md",
        "the best response to two bayes_v2 wins {} over bayes_v2 in its seat, {} over the agent it started from",
        lambda: [br("bayes_v2_3p_from_agent", "best"), br("bayes_v2_3p_from_agent", "best", "over_start")],
    ),
    (
        "docs/evaluation.md",
        "Against three bayes_v2 the best response wins {} over bayes_v2, all of it the start's ({} on the same "
        "deals; the best response over its start {})",
        lambda: [
            br("bayes_v2_4p_from_agent", "best"),
            br("bayes_v2_4p_from_agent", "start"),
            br("bayes_v2_4p_from_agent", "best", "over_start"),
        ],
    ),
    (
        "docs/evaluation.md",
        "Against four bayes_v2 the start is already {} over bayes_v2, and 300,000 steps add {} to it ({} over bayes_v2)",
        lambda: [
            br("bayes_v2_5p_from_agent", "start"),
            br("bayes_v2_5p_from_agent", "best", "over_start"),
            br("bayes_v2_5p_from_agent", "best"),
        ],
    ),
    ("docs/tournaments.md", "at 5 players {} more", lambda: [br("bayes_v2_5p_from_agent", "best", "over_start")]),
    (
        "docs/evaluation.md",
        "the best response's {} over bayes_v1 is the agent's own ({} over its start)",
        lambda: [br("bayes_v1_3p_from_agent", "best"), br("bayes_v1_3p_from_agent", "best", "over_start")],
    ),
    (
        "docs/evaluation.md",
        "two copies of `ppo_all_counts_mixed_34p` gains {} at 3 players",
        lambda: [br("ppo_all_counts_mixed_34p_3p_self", "best")],
    ),
    ("docs/evaluation.md", "and to four {} at 5", lambda: [br("ppo_all_counts_mixed_34p_5p_self", "best")]),
    (
        "docs/evaluation.md",
        "(picked on 2016 evaluation deals, early in the run) gains {}, but its final model {}",
        lambda: [br("ppo_all_counts_mixed_34p_4p_self", "best"), br("ppo_all_counts_mixed_34p_4p_self", "final")],
    ),
    (
        "docs/tournaments.md",
        "at 4 the run's final model gains {}",
        lambda: [br("ppo_all_counts_mixed_34p_4p_self", "final")],
    ),
    (
        "docs/evaluation.md",
        "bayes_v2 reach {} against bayes_v2's {} in the same seat ({})",
        lambda: [
            f"{held('bayes_v2_3p_scratch')['best']['win_rate']:.3f}",
            f"{held('bayes_v2_3p_scratch')['player_win_rate']:.3f}",
            br("bayes_v2_3p_scratch", "best"),
        ],
    ),
    # the earlier agent's 5-player mixed table
    (
        "docs/training.md",
        "In the 5-player mixed table (balanced seatings) it is {} with bayes_v2 over both samples of 8000 deals "
        "(lead {} pooled",
        lead("mixed_vs_mixed_bayes_v2_5p_seed*.json", "checkpoints/ppo_all_counts_mixed", games=False),
    ),
    # search against the strongest agent in its seat at bayes_v2's tables: seed 44 (scalar) and 4402 (batched)
    (
        "docs/baselines.md",
        "Pooled with the samples of seed 44 above, the search is {} the agent in its seat at bayes_v2's tables "
        "at 3 players ({} on {} deals)",
        level_or_above(SEARCH.format(3)),
    ),
    ("docs/baselines.md", "{} it at 4 ({} on {} deals)", level_or_above(SEARCH.format(4))),
    ("docs/baselines.md", "and {} it at 5 ({} on {} deals)", level_or_above(SEARCH.format(5))),
    (
        "docs/agents.md",
        "At the 5-player mixed table it is {} with bayes_v2 over both samples of 8000 deals (lead {} pooled",
        lead("mixed_vs_mixed_bayes_v2_5p_seed*.json", "checkpoints/ppo_all_counts_mixed", games=False),
    ),
]


def normal(doc: str) -> str:
    return " ".join((ROOT / doc).read_text().split())


@pytest.mark.parametrize(("doc", "sentence", "figures"), CLAIMS, ids=[f"{c[0]}:{c[1][:40]}" for c in CLAIMS])
def test_a_claim_is_what_its_samples_show(doc, sentence, figures):
    text = normal(doc)
    expected = sentence.format(*figures())
    if expected not in text:
        pattern = re.escape(sentence).replace(r"\{\}", "(.+?)")
        quoted = re.search(pattern, text)
        assert quoted, f"{doc}: the claim {sentence!r} is gone: update CLAIMS with the sentence that makes it"
        raise AssertionError(f"{doc} says {quoted.groups()} where the samples give {expected!r}")


FIRST = re.compile(
    r"\b(?:is|are|stays|still|it|agent|was|were|comes) first\b"
    r"|\bfirst (?:at|in|by|with) (?:the|every|all|both|each|a|\d)"
    r"|\bfirst place\b(?!'s lead)",
    re.I,
)
NOT_CLAIMS = (
    "whether its first place is clear",  # what the evaluator's lead line is for
    "no first place is clear",  # ppo_all_counts_large_batch's mixed tables, each lead beside it
    "the first place at seed 4711 above was noise",
    "and first place in the mixed tables does not",
)
"""Sentences that name a first place without giving one to anybody."""


def test_every_first_place_in_the_docs_is_a_claim():
    """A sentence calling a player first is one of ``CLAIMS`` (its verdict formatted from its files)."""
    for doc in DOCS:
        text = normal(doc)
        covered = [
            (start, start + len(expected))
            for d, sentence, figures in CLAIMS
            if d == doc and (start := text.find(expected := sentence.format(*figures()))) >= 0
        ]
        for match in FIRST.finditer(text):
            if any(low <= match.start() < high for low, high in covered):
                continue
            context = text[max(0, match.start() - 120) : match.end() + 120]
            assert any(quote in context for quote in NOT_CLAIMS), (
                f"{doc}: ...{context}... calls a player first: make it a claim in CLAIMS, pooled over its files"
            )


def test_pooling_weighs_the_samples_by_games():
    one = (0.02, 0.0, 0.04, 1000)
    both = pooled([one, one])
    assert both.mean == pytest.approx(0.02)
    assert both.half_width == pytest.approx(0.02 / 2**0.5)  # twice the games: the interval / sqrt 2
    weighted = pooled([(0.0, -0.02, 0.02, 3000), (0.04, 0.0, 0.08, 1000)])
    assert weighted.mean == pytest.approx(0.01)
    assert verdict(Stat(0.01, 0.001, 0.02)) == "first" and verdict(Stat(0.01, -0.001, 0.02)) == "tied"
    assert verdict(Stat(-0.01, -0.02, -0.001)) == "behind"
    with pytest.raises(ValueError, match="no samples"):
        pooled([])


def test_a_lead_is_read_from_either_place(tmp_path):
    record = {"games": 100, "lead": {"first": "b", "second": "a", "difference": 0.03, "ci95": [0.01, 0.05]}}
    path = tmp_path / "table.json"
    path.write_text(json.dumps(record))
    assert claims.lead_sample(path, "a", "b") == (-0.03, -0.05, -0.01, 100)
    assert claims.lead_sample(path, "b", "a") == (0.03, 0.01, 0.05, 100)
    with pytest.raises(ValueError, match="first two places"):
        claims.lead_sample(path, "a", "c")
    with pytest.raises(ValueError, match="not a paired comparison"):
        claims.paired_sample(path)


# ---------------------------------------------------------------------------------------------- docs/evaluation.md
LADDER = re.compile(r"<!-- ladder: (\S+) -->\n\n(.+?)\n\n(held out: .+?)\n", re.S)


def test_the_rated_ladders_in_the_docs_are_their_files():
    pytest.importorskip("openskill")
    from ckc_env.evaluation.rating import markdown, rate

    text = (ROOT / "docs/evaluation.md").read_text()
    found = LADDER.findall(text)
    assert len(found) == 3, "docs/evaluation.md shows the 3-, 4- and 5-player ladders"
    for path, table, check in found:
        record = json.loads((ROOT / path).read_text())
        assert f"{table}\n\n{check}" == markdown(record), f"{path}: regenerate it"
        games = [(t["lineup"], t["ranks"]) for t in record["rated_tables"]]  # the file's own games, rated again
        again = rate(record["players"], games, record["seed"], record["rating"]["tau"])
        assert again == {r["player"]: (r["mu"], r["sigma"]) for r in record["ratings"]}, path


def test_the_table_of_claims_is_its_files():
    text = (ROOT / "docs/evaluation.md").read_text()
    marker = "<!-- claims: docs/results/claims.json -->\n"
    assert marker in text
    table = text.split(marker, 1)[1].split("\n\n", 1)[0]
    entries = json.loads((ROOT / RESULTS / "claims.json").read_text())
    assert table == claims.markdown(entries), "docs/evaluation.md's table of claims: regenerate it"
