"""Every table of results in the docs is the result file it was made from.

A table of tournament results (a header with "win rate") must follow a marker naming its files,
``<!-- results: docs/results/ladder_5p.json -->``, between the previous paragraph break and the
table. A table in the evaluator's own format (``| player | win rate | ...`` or ``| rank | player |
...``) must be exactly ``tournament.markdown_table`` of its one file; any other table's figures
(numbers with two or more decimals) must each be a number of its files (a mean, an interval bound,
a half-width), at the precision printed (and a table of the bayes_v1 parameter search, each row of its log). So a figure cannot go stale without this test failing, and
regenerating a result means regenerating its table (the command is above each table).

Two more ties: figures quoted in the text (``QUOTES``: the sentence, its result file, the figures
formatted from it) must be their file's, and (``-m slow``) a sample of the docs' own ``ckc-evaluate``
commands (``RERUN``), run again as printed, must give their committed result files exactly.
"""

import json
import re
from pathlib import Path

import pytest

from ckc_env.evaluation.tournament import markdown_table

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
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
    """The pages that publish results hold tables of them (the others may hold none)."""
    assert {doc for doc, *_ in CASES} >= {
        "docs/agents.md",
        "docs/baselines.md",
        "docs/evaluation.md",
        "docs/tournaments.md",
    }
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


# ---------------------------------------------------------------------------------------------- commands
COMMAND = re.compile(r"^(?:OPENBLAS_NUM_THREADS=1 )?(ckc-evaluate .*?--out (docs/results/\S+).*?)(?:\s+#.*)?$")
INLINE = re.compile(r"`(ckc-evaluate [^`]*?--out (docs/results/[^`\s]+)[^`]*)`")


def doc_commands() -> dict[str, list[str]]:
    """The ``ckc-evaluate`` commands the docs print, by the result file they write (``--out`` without
    its suffix): every line of a code block, and every command quoted inline in the text (lines
    joined). Loops and variables (``$n``) are left out: a sample names plain commands."""
    import shlex

    found: dict[str, list[str]] = {}
    for doc in DOCS:
        text = (ROOT / doc).read_text()
        candidates = [m.groups() for line in text.splitlines() if (m := COMMAND.match(line.strip()))]
        candidates += [(" ".join(c.split()), out) for c, out in INLINE.findall(text)]
        for command, out in candidates:
            if "$" not in command:
                found[out] = shlex.split(command)[1:]
    return found


# A sample of the docs' commands, cheap ones (batched, a few thousand games): each is run as the docs
# print it and must give its committed result file exactly, every number. A scripted lineup (a few
# seconds: in the default run), agent files at a table, paired comparisons (-m slow: about a minute).
RERUN = [
    "docs/results/cheater_vs_bayes_5p",
    pytest.param("docs/results/ppo_5p_vector_vs_bayes_seed2027", marks=pytest.mark.long),
    pytest.param("docs/results/attempts/finetune_all_counts_vs_start_bayes_v1_5p", marks=pytest.mark.long),
    pytest.param("docs/results/bayes_v3_vs_bayes_v2_at_bayes_v1_4p", marks=pytest.mark.long),
]


def test_the_commands_rerun_are_the_docs_commands():
    commands = doc_commands()
    assert len(commands) >= 50
    for out in [getattr(case, "values", [case])[0] for case in RERUN]:
        assert out in commands, f"{out}: no ckc-evaluate command in the docs writes it"


@pytest.mark.parametrize("out", RERUN)
def test_a_committed_command_gives_its_committed_result_file(out, tmp_path):
    """The command the docs print beside a table, run again, gives its result file exactly (the JSON,
    and the CSV where one is committed): a change that moves a figure cannot pass unnoticed."""
    from ckc_env.evaluation.commands import evaluate

    argv = doc_commands()[out]
    at = argv.index("--out")
    argv[at + 1] = str(tmp_path / "result")
    evaluate.main(argv)
    assert json.loads((tmp_path / "result.json").read_text()) == json.loads((ROOT / f"{out}.json").read_text()), (
        f"{out}.json is not what its command gives now: re-run it, and its tables (tests above) follow"
    )
    if (ROOT / f"{out}.csv").is_file():
        assert (tmp_path / "result.csv").read_text() == (ROOT / f"{out}.csv").read_text()


# ---------------------------------------------------------------------------------------------- prose
def rate(stat: dict) -> str:
    """A rate as the docs quote it: ``mean [low, high]``."""
    return f"{stat['mean']:.3f} [{stat['ci95'][0]:.3f}, {stat['ci95'][1]:.3f}]"


def paired(stat: dict) -> str:
    """A paired difference as the docs quote it: ``+mean ± half-width``."""
    return f"{stat['mean']:+.3f} ± {(stat['ci95'][1] - stat['ci95'][0]) / 2:.3f}"


def ladder_rate(result: dict, player: str) -> str:
    """A player's pooled win rate in a round robin, as the docs quote it."""
    return f"{result['pooled'][result['players'].index(player)]['win']['mean']:.3f}"


# Figures quoted in prose, each with the result file it comes from: (doc, the sentence with {} for
# the figures, the file, a function of the file giving the figures). The doc's text is compared with
# its line breaks as spaces.
STRONGEST = "checkpoints/ppo_all_counts_mixed_34p"


def signed(stat: dict) -> str:
    """A paired difference as the docs quote it with its interval: ``+mean [+low, +high]``."""
    return f"{stat['mean']:+.3f} [{stat['ci95'][0]:+.3f}, {stat['ci95'][1]:+.3f}]"


def wilson_rate(result: dict) -> str:
    """A training evaluation's win rate with its interval, as the docs quote it."""
    return f"{result['win_rate']:.3f} [{result['win_ci95'][0]:.3f}, {result['win_ci95'][1]:.3f}]"


def steps_per_s(result: dict, *names: str) -> list[str]:
    """bench_training's medians, as the docs quote them (thousands separated)."""
    return [f"{result['medians'][name]:,.0f}" for name in names]


def step_zero(history: list) -> list[str]:
    """A run's first evaluation as the docs quote it (to the last digit the file holds)."""
    first = history[0]
    return [
        f"{first['results']['vs_bayes_v1']['win_rate']:.6f}",
        f"{first['results']['vs_random']['win_rate']:.6f}",
        f"{first['vs_reference']['difference']:.6f}",
    ]


DEVICE_CURVE = "docs/results/scratch_jax_h200_evaluations.json"
DECISIONS = "docs/results/bench_training_decisions_cpu.json"
TABLE_STEP = "docs/results/bench_table_step_cpu.json"
SELF_PLAY_CPU = "docs/results/self_play_jax_cpu_evaluations.json"
SELF_PLAY_H200 = "docs/results/self_play_jax_gpu_h200_evaluations.json"
H200_DECISIONS = "docs/results/bench_training_h200_decisions.json"
COMPILE = "docs/results/bench_compile_cpu.json"
CPU_CHECK = "docs/results/scratch_jax_cpu_first_minutes_evaluations.json"

QUOTES = [
    (
        "docs/device.md",
        "gives the H200's step-0 figures to the last digit ({} against four bayes_v1, {} against four random, {} in "
        "bayes_v2's seat",
        CPU_CHECK,
        lambda r: step_zero(r) if step_zero(r) == step_zero(json.loads((ROOT / DEVICE_CURVE).read_text())) else [],
    ),
    (
        "docs/device.md",
        "after 8 iterations, {} against four bayes_v1 where the H200 gave {}",
        CPU_CHECK,
        lambda r: [
            f"{r[1]['results']['vs_bayes_v1']['win_rate']:.4f}",
            f"{json.loads((ROOT / DEVICE_CURVE).read_text())[1]['results']['vs_bayes_v1']['win_rate']:.4f}",
        ],
    ),
    (
        "docs/device.md",
        "The run ended at 1.5M steps with {} against four bayes_v1 and {} in bayes_v2's seat on the same deals "
        "(bayes_v2 wins {} there",
        DEVICE_CURVE,
        lambda r: [
            wilson_rate(r[-1]["results"]["vs_bayes_v1"]),
            signed({"mean": r[-1]["vs_reference"]["difference"], "ci95": r[-1]["vs_reference"]["ci95"]}),
            f"{json.loads((ROOT / 'docs/results/scratch_jax_h200_reference_games.json').read_text())['result']['win_rate']:.3f}",
        ],
    ),
    (
        "docs/device.md",
        "its best model (1.5M steps) wins {} where `ppo_all_counts_mixed_34p` wins {}, a paired difference of {}",
        "docs/results/scratch_jax_h200_vs_mixed_34p_5p.json",
        lambda r: [rate(r["players"][0]["win"]), rate(r["players"][1]["win"]), signed(r["difference"]["win"])],
    ),
    (
        "docs/device.md",
        "| one H200 (`docs/results/bench_training_h200.json`, one repeat) | {} | {} | {} |",
        "docs/results/bench_training_h200.json",
        lambda r: steps_per_s(r, "jax vs 4 random", "jax vs 4 bayes_v1", "jax env only, vs 4 bayes_v1"),
    ),
    (
        "docs/device.md",
        "| the 2-core CPU (`docs/results/bench_training_jax_cpu.json`, median of 3) | {} | {} | {} |",
        "docs/results/bench_training_jax_cpu.json",
        lambda r: steps_per_s(r, "jax vs 4 random", "jax vs 4 bayes_v1", "jax env only, vs 4 bayes_v1"),
    ),
    (
        "docs/device.md",
        "The first run of `scratch_jax.yaml` on the 2-core CPU spends {} s compiling (the learner's first deal {} s, "
        "the games' deal {}, the evaluations' tournament {}, the training iteration {}); a second run of the same "
        "config **{} s** ({}, {}, {} and {})",
        COMPILE,
        lambda r: [
            f"{r['runs'][run]['compile_seconds']:.{digits}f}"
            if part is None
            else f"{r['runs'][run]['programs'][part]['seconds']:.{digits}f}"
            for run, digits in (("scratch_jax, first", 0), ("scratch_jax, cached", 1))
            for part in (
                None,
                "the learner's first deal (reset)",
                "the games' deal",
                "a tournament's games",
                "the training iteration",
            )
        ],
    ),
    (
        "docs/device.md",
        "against four bayes_v1 and then four random compiles in {} s instead of {}, medians of 3 in one run",
        "docs/results/bench_eval_tables_cpu.json",
        lambda r: [
            f"{sum(r['medians'][way][table] for table in ('against four bayes_v1', 'against four random')):.1f}"
            for way in ("together", "apart")
        ],
    ),
    (
        "docs/device.md",
        "a first run compiles {} s against four bayes_v1 and {} s in self-play, and a cached one {} s and {} s",
        "docs/results/bench_compile_cpu_config_evaluation.json",
        lambda r: [
            f"{r['runs'][f'{name}, {attempt}']['compile_seconds']:.{0 if attempt == 'first' else 1}f}"
            for attempt in ("first", "cached")
            for name in ("scratch_jax", "self_play_jax")
        ],
    ),
    (
        "docs/device.md",
        "`self_play_jax.yaml`: {} s the first time, **{} s** cached",
        COMPILE,
        lambda r: [
            f"{r['runs']['self_play_jax, first']['compile_seconds']:.0f}",
            f"{r['runs']['self_play_jax, cached']['compile_seconds']:.1f}",
        ],
    ),
    (
        "docs/device.md",
        "| the device path, one decision per step | {} | {} | {} | {} |",
        DECISIONS,
        lambda r: steps_per_s(
            r,
            "jax decisions, self-play",
            "jax decisions vs 4 random",
            "jax decisions vs 4 bayes_v1",
            "jax decisions env only, vs 4 bayes_v1",
        ),
    ),
    (
        "docs/device.md",
        "| the device path, the learner's view | | {} | {} | {} |",
        DECISIONS,
        lambda r: steps_per_s(r, "jax vs 4 random", "jax vs 4 bayes_v1", "jax env only, vs 4 bayes_v1"),
    ),
    (
        "docs/device.md",
        "| SB3's vector path (self-play: against four snapshots of the learner's shape) | {} | {} | {} | {} |",
        DECISIONS,
        lambda r: steps_per_s(
            r, "vector vs 4 snapshots", "vector vs 4 random", "vector vs 4 bayes_v1", "vector env only, vs 4 bayes_v1"
        ),
    ),
    (
        "docs/device.md",
        "In self-play the device path trains at **{}x** SB3's vector path against four snapshots",
        DECISIONS,
        lambda r: [f"{r['ratios']['jax decisions self-play / vector vs 4 snapshots']:.2f}"],
    ),
    (
        "docs/device.md",
        "past the goal of 3x, and at {}x against four random",
        DECISIONS,
        lambda r: [f"{r['ratios']['jax decisions / vector, vs 4 random']:.2f}"],
    ),
    (
        "docs/device.md",
        "the environment alone runs at **{}x** the NumPy one's (the learner's view: {}x), past the goal of 2x in this "
        "run, and the device path trains at {}x SB3's vector path with one decision per step ({}x with the learner's "
        "view)",
        DECISIONS,
        lambda r: [
            f"{r['ratios'][name]:.2f}"
            for name in (
                "jax decisions env / vector env, vs 4 bayes_v1",
                "jax env / vector env, vs 4 bayes_v1",
                "jax decisions / vector, vs 4 bayes_v1",
                "jax / vector, vs 4 bayes_v1",
            )
        ],
    ),
    (
        "docs/device.md",
        "a step of the table's view takes {} ms; the game's step {} (its suspicion loop {}, the round ends {}), "
        "the four bayes_v1 {}, the deals {} and the learner's observations {}, where a part that returns the games "
        "pays about {} ms",
        TABLE_STEP,
        lambda r: [
            f"{r['milliseconds'][name]:.1f}"
            for name in (
                "table step",
                "game step",
                "suspicion loop",
                "round ends",
                "opponents",
                "deals",
                "learner's observations",
                "the games returned",
            )
        ],
    ),
    (
        "docs/device.md",
        "counted) takes {} ms for all 2048 games",
        TABLE_STEP,
        lambda r: [f"{r['milliseconds']['world counts']:.2f}"],
    ),
    (
        "docs/device.md",
        "it reached bayes_v1's level at its first evaluation, {} at 524k steps after {} minutes, and its best, {} at "
        "1.5M steps after {} minutes, is above it",
        SELF_PLAY_CPU,
        lambda r: [
            part
            for entry in (r[1], r[3])  # the first evaluation, and the best
            for part in (wilson_rate(entry["results"]["vs_bayes_v1"]), f"{entry['elapsed_seconds'] / 60:.1f}")
        ],
    ),
    (
        "docs/device.md",
        "its best model wins {} where `ppo_all_counts_mixed_34p` wins {}, a paired difference of {}",
        "docs/results/self_play_jax_cpu_vs_mixed_34p_5p.json",
        lambda r: [rate(r["players"][0]["win"]), rate(r["players"][1]["win"]), signed(r["difference"]["win"])],
    ),
    (
        "docs/device.md",
        "| training against four bayes_v1 (`docs/results/bench_training_h200_decisions.json`) | {} | 100k |",
        H200_DECISIONS,
        lambda r: steps_per_s(r, "jax decisions vs 4 bayes_v1"),
    ),
    (
        "docs/device.md",
        "| the environment alone against four bayes_v1 (same run) | {} | |",
        H200_DECISIONS,
        lambda r: steps_per_s(r, "jax decisions env only, vs 4 bayes_v1"),
    ),
    (
        "docs/device.md",
        "{} against four bayes_v1 at 6.0M steps. It then held there: its best, {} at 80.2M steps, is level with "
        "bayes_v2 in its seat on the same deals ({}; bayes_v2 wins {} there",
        SELF_PLAY_H200,
        lambda r: [
            wilson_rate(r[3]["results"]["vs_bayes_v1"]) if r[3]["timesteps"] == 6029312 else "",
            wilson_rate(max(r, key=lambda e: e["results"]["vs_bayes_v1"]["win_rate"])["results"]["vs_bayes_v1"]),
            signed({"mean": r[40]["vs_reference"]["difference"], "ci95": r[40]["vs_reference"]["ci95"]}),
            f"{json.loads((ROOT / SELF_PLAY_H200.replace('evaluations', 'reference_games')).read_text())['result']['win_rate']:.3f}",
        ],
    ),
    (
        "docs/device.md",
        "its best model wins {} where `ppo_all_counts_mixed_34p` wins {}, a paired difference of {} "
        "(`docs/results/self_play_jax_h200_vs_mixed_34p_5p.json`",
        "docs/results/self_play_jax_h200_vs_mixed_34p_5p.json",
        lambda r: [rate(r["players"][0]["win"]), rate(r["players"][1]["win"]), signed(r["difference"]["win"])],
    ),
    (
        "docs/device.md",
        "costs the device path {} µs per learner step (4 epochs' gradient rows at {} µs and a forward row at {}; XLA "
        "reaches {}-{} GFLOP/s on the two cores) and SB3's torch {} µs",
        "docs/results/bench_ppo_update_cpu.json",
        lambda r: [
            f"{r['us_per_learner_step']['jax']:.1f}",
            f"{r['us_per_row']['jax step']:.2f}",
            f"{r['us_per_row']['jax forward']:.2f}",
            *(f"{value:.0f}" for value in r["gflops"].values()),
            f"{r['us_per_learner_step']['sb3']:.1f}",
        ],
    ),
    (
        "docs/device.md",
        "| SB3's vector path on the same CPU, same run | {} | {} | {} |",
        "docs/results/bench_training_jax_cpu.json",
        lambda r: steps_per_s(r, "vector vs 4 random", "vector vs 4 bayes_v1", "vector env only, vs 4 bayes_v1"),
    ),
    *[
        (
            doc,
            "at 3 players it is level with bayes_v2 ({} and {}, their intervals overlapping: not a lead)",
            "docs/results/ladder_3p.json",
            lambda r: [ladder_rate(r, STRONGEST), ladder_rate(r, "bayes_v2")],
        )
        for doc in ("docs/tournaments.md", "docs/baselines.md")
    ],
    (
        "docs/tournaments.md",
        "against four bayes_v1 the cheater wins {} of 5-player games",
        "docs/results/cheater_vs_bayes_5p.json",
        lambda r: [rate(r["players"][0]["win"])],
    ),
    (
        "docs/baselines.md",
        "the cheater against four bayes_v1 (5 players, 2000 games) wins {} where a fifth seat's share is 0.2",
        "docs/results/cheater_vs_bayes_5p.json",
        lambda r: [rate(r["players"][0]["win"])],
    ),
    (
        "docs/training.md",
        "`ppo_all_counts_mixed_34p` wins {} against two bayes_v2",
        "docs/results/mixed_34p_vs_bayes_v2_3p_seed9800.json",
        lambda r: [rate(r["players"][0]["win"])],
    ),
    (
        "docs/training.md",
        "bayes_v2 in its seat on the same deals wins {} on seed 9800: the agent's edge over bayes_v2 itself is {}",
        "docs/results/mixed_34p_vs_bayes_v2_3p_seed9800.json",
        lambda r: [rate(r["players"][1]["win"]), paired(r["difference"]["win"])],
    ),
    (
        "docs/training.md",
        "wins {} against three bayes_v2 ({} over bayes_v2 in its seat, 4008 games",
        "docs/results/bayes_v3_vs_bayes_v2_4p.json",
        lambda r: [rate(r["players"][0]["win"]), paired(r["difference"]["win"])],
    ),
    (
        "docs/baselines.md",
        "at 4 {}, which puts it above bayes_v2's own tables",
        "docs/results/bayes_v3_vs_bayes_v2_4p.json",
        lambda r: [paired(r["difference"]["win"])],
    ),
    (
        "docs/training.md",
        "Against four bayes_v1 it wins {}. Against its cloned start, `ppo_all_counts`",
        "docs/results/mixed_34p_vs_bayes_v1_5p_seed9009.json",
        lambda r: [rate(r["players"][0]["win"])],
    ),
    (
        "docs/training.md",
        "it wins {} against four bayes_v1 at 5 players, {} over the agent it started from",
        "docs/results/attempts/finetune_all_counts_vs_start_bayes_v1_5p.json",
        lambda r: [rate(r["players"][0]["win"]), paired(r["difference"]["win"])],
    ),
    (
        "docs/baselines.md",
        "check, it is above the agent by {}, the largest 4-player gain measured",
        "docs/results/search/batched_wide_vs_agent_bayes_v2_4p.json",
        lambda r: [signed(r["difference"]["win"])],
    ),
    (
        "docs/baselines.md",
        "on fresh ones, {}, level with the agent (its interval [{}, {}] just reaches 0)",
        "docs/results/search/batched_wide_vs_agent_bayes_v2_3p.json",
        lambda r: [f"{r['difference']['win']['mean']:+.3f}", *(f"{x:+.3f}" for x in r["difference"]["win"]["ci95"])],
    ),
    (
        "docs/baselines.md",
        "Batched, a searched decision costs {} to {} s, a third or less of the scalar player's median, and a game "
        "with search {} to {} s",
        "docs/results/search/bench_search_cpu.json",
        lambda r: [
            f"{r['by_players']['3']['batched']['seconds per searched decision (added)']:.3f}",
            f"{r['by_players']['5']['batched']['seconds per searched decision (added)']:.3f}",
            f"{r['by_players']['3']['batched']['seconds per game with search']:.2f}",
            f"{r['by_players']['5']['batched']['seconds per game with search']:.2f}",
        ],
    ),
]


@pytest.mark.parametrize(("doc", "sentence", "path", "figures"), QUOTES, ids=[f"{q[0]}:{q[2]}" for q in QUOTES])
def test_a_figure_quoted_in_prose_is_its_result_file(doc, sentence, path, figures):
    text = " ".join((ROOT / doc).read_text().split())
    expected = sentence.format(*figures(json.loads((ROOT / path).read_text())))
    if expected not in text:
        pattern = re.escape(sentence).replace(r"\{\}", "(.+?)")
        quoted = re.search(pattern, text)
        assert quoted, f"{doc}: the sentence {sentence!r} is gone: update QUOTES with the text that quotes {path}"
        raise AssertionError(f"{doc} quotes {quoted.groups()} where {path} gives {expected!r}")
