"""The golden playthroughs still play out decision for decision (see tests/playthrough.py)."""

import pytest
from playthrough import CASES, DATA, playthrough


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name: str) -> None:
    expected = (DATA / f"playthrough_{name}.txt").read_text().splitlines()
    actual = playthrough(CASES[name]).splitlines()
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, f"playthrough {name} differs first at line {i + 1}"
    assert len(actual) == len(expected)
