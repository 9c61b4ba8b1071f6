"""Every table of results in the docs is the result file it was made from.

A table of tournament results (a header with "win rate") must follow a marker naming its files,
``<!-- results: docs/results/ladder_5p.json -->``, between the previous paragraph break and the
table. A table in the evaluator's own format (``| player | win rate | ...`` or ``| rank | player |
...``) must be exactly ``tournament.markdown_table`` of its one file; any other table's figures
(numbers with two or more decimals) must each be a number of its files (a mean, an interval bound,
a half-width), at the precision printed (and a table of the bayes_v1 parameter search, each row of its log). So a figure cannot go stale without this test failing, and
regenerating a result means regenerating its table (the command is above each table).
"""

import json
import re
from pathlib import Path

import pytest

from ckc_env.evaluation.tournament import markdown_table

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "checkpoints/README.md", "docs/baselines.md"]
MARKER = re.compile(r"<!-- results: (.+?) -->")
FIGURE = re.compile(r"(?<![\w.])-?\d+\.\d{2,}")  # "0.21-0.24" is 0.21 and 0.24


def tables(path: Path) -> list[tuple[int, list[str], list[str]]]:
    """(line number, marker files, table lines) of every table of results in a Markdown file."""
    lines = path.read_text().splitlines()
    found = []
    k = 0
    while k < len(lines):
        if not lines[k].startswith("|"):
            k += 1
            continue
        start = k
        while k < len(lines) and lines[k].startswith("|"):
            k += 1
        if "win rate" in lines[start]:  # the header: a table of results
            files: list[str] = []
            back = start - 1
            while back >= 0 and not lines[back].startswith(("#", "|", "```")):
                match = MARKER.search(lines[back])
                if match:
                    files = match.group(1).split()
                    break
                back -= 1
            found.append((start + 1, files, lines[start:k]))
    return found


def numbers(data, out: set[float]) -> None:
    """Every number in a result file, and the half-width of every interval (a pair of numbers)."""
    if isinstance(data, dict):
        data = list(data.values())
    if isinstance(data, list):
        if len(data) == 2 and all(isinstance(v, (int, float)) for v in data):
            out.add((data[1] - data[0]) / 2)
        for value in data:
            numbers(value, out)
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        out.add(float(data))


CASES = [(doc, line, files, table) for doc in DOCS for line, files, table in tables(ROOT / doc)]


def test_the_docs_have_tables_of_results():
    assert {doc for doc, *_ in CASES} == set(DOCS)
    assert len(CASES) >= 10


@pytest.mark.parametrize(("doc", "line", "files", "table"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_a_table_of_results_is_its_result_file(doc, line, files, table):
    assert files, f"{doc}:{line}: a table of results needs <!-- results: FILE.json --> above it"
    results = [json.loads((ROOT / f).read_text()) for f in files]
    if "log" in results[0] and "check" not in results[0]:  # training/tune_bayes.py's search: its log, row by row
        logged = {(e["parameter"], float(e["value"]), f"{e['win_rate']:.3f}") for e in results[0]["log"]}
        for row in table[2:]:
            parameter, value, rate = (cell.strip() for cell in row.split("|")[1:-1])
            assert (parameter, float(value), rate) in logged, f"{doc}:{line}: {row} is not in {files[0]}"
        return
    if table[0].startswith(("| player | win rate", "| rank | player | win rate")):
        assert len(results) == 1, f"{doc}:{line}: an evaluator table comes from one file"
        assert "\n".join(table) == markdown_table(results[0]), f"{doc}:{line} differs from {files[0]}: regenerate it"
        return
    candidates: set[float] = set()
    for result in results:
        numbers(result, candidates)
    for row in table[2:]:
        for cell in row.split("|")[1:-1]:
            for figure in FIGURE.findall(cell):
                decimals = len(figure.split(".")[1])
                assert any(f"{v:.{decimals}f}" == figure for v in candidates), (
                    f"{doc}:{line}: {figure} ({cell.strip()}) is in none of {files}"
                )


def test_an_evaluator_table_is_what_the_evaluator_prints():
    """markdown_table of a saved result is the table the evaluator printed for it."""
    from ckc_env.evaluation.tournament import round_robin, run_tournament

    lineup = run_tournament(["random", "passive", "eager"], games=6, seed=1, workers=1)
    table, lead = lineup.table().split("\n\nfirst: ")  # the table, then the first place's lead
    assert table.endswith(markdown_table(json.loads(json.dumps(lineup.to_json()))))
    assert lead.startswith(lineup.lead()["first"])
    ranking = round_robin(["random", "passive", "eager", "bayes_v1"], 3, games=8, seed=1, workers=1)
    assert ranking.ranking().endswith(markdown_table(json.loads(json.dumps(ranking.to_json()))))
