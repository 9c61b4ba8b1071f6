"""The golden playthroughs still play out decision for decision (see tests/playthrough.py)."""

import pytest
from playthrough import CASES, DATA, playthrough


def _changed_words(want: str, got: str) -> str:
    """The pieces (space-separated ``name=...`` words) that differ between two lines."""
    a, b = want.split(), got.split()
    gone = [w for w in a if w not in b]
    new = [w for w in b if w not in a]
    return f"expected {gone[:6]}, got {new[:6]}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name: str) -> None:
    expected = (DATA / f"playthrough_{name}.txt").read_text().splitlines()
    actual = playthrough(CASES[name]).splitlines()
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, f"playthrough {name} differs first at line {i + 1}: {_changed_words(want, got)}"
    assert len(actual) == len(expected)
