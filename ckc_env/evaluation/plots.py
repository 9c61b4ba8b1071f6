"""Pictures of results: tournament win rates with their intervals, and a run's training curve.

    ckc-plot results docs/results/ladder_3p.json docs/results/ladder_4p.json docs/results/ladder_5p.json \\
        --out docs/ladder.png                      # one panel per file (a lineup or a round robin)
    ckc-plot run checkpoints/ppo_5p_distilled --out docs/ppo_5p_distilled.png   # evaluations.json over time
    ckc-plot run runs/quick_seed0 --reference docs/results/passive_vs_random.json --out docs/quick_seed0.png
    ckc-plot runs docs/results/scratch_vector_evaluations.json docs/results/scratch_jax_h200_evaluations.json \\
        --labels "CPU, SB3" "H200, JAX" --fair 0.2 --out docs/scratch_device.png   # runs side by side
    ckc-evaluate --lineup ... --plot lineup.png    # the tournament just played

(``ckc-plot`` is :mod:`ckc_env.evaluation.commands.plot`.) Needs matplotlib, the ``plot`` extra:
``pip install -e ".[plot]"`` in a checkout. Every interval drawn is the one in the file: Wilson's
95% interval for win rates (:class:`ckc_env.evaluation.statistics.Stat`); the dashed line is a
seat's fair share, 1/n.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ckc_env import cli
from ckc_env.config import PLAYER_COUNTS
from ckc_env.files import atomic_output, check_output, read_json, read_yaml

from .statistics import Z95, wilson


def _pyplot():
    cli.need_extra("plot", "matplotlib")  # the message every extra gives: pip install -e ".[plot]" ...
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt

    return plt


def check_plot(path: str | Path, flag: str = "--plot") -> Path:
    """A picture's path checked before any game is played or file read: matplotlib installed, a
    format it writes (``.png``, ``.svg``, ``.pdf``, ...: its name's suffix), a place it can be written
    (:func:`ckc_env.files.check_output`). Nothing is created."""
    cli.need_extra("plot", "matplotlib")
    from matplotlib.backend_bases import FigureCanvasBase

    formats = tuple(f".{name}" for name in sorted(FigureCanvasBase.get_supported_filetypes()))
    return check_output(path, flag, formats)


def win_rates(result: dict[str, Any]) -> tuple[str, int, list[tuple[str, float, float, float]]]:
    """(title, players per table, [(player, win rate, low, high)]) of a saved lineup or round robin
    (``TournamentResult.to_json`` or ``RoundRobinResult.to_json``)."""
    if not isinstance(result, dict):
        raise ValueError("not a tournament result: expected a JSON object")
    if "pooled" in result:  # a round robin: each player over every table it sat at
        n, labels, stats = result["num_players"], result["players"], result["pooled"]
        title = f"{n} players, round robin: {len(result['tables'])} table(s), {result.get('games', '?')} games"
    elif "lineup" in result:
        n, labels, stats = len(result["labels"]), list(result["labels"]), result["players"]
        title = f"{n} players, lineup: {result['games']} games, seed {result['seed']}"
        counts = {label: labels.count(label) for label in labels}
        seen: dict[str, int] = {}
        for i, label in enumerate(list(labels)):  # the same player at several seats: number them
            seen[label] = seen.get(label, 0) + 1
            if counts[label] > 1:
                labels[i] = f"{label} #{seen[label]}"
    else:
        raise ValueError("not a tournament result: expected the JSON of a lineup (lineup) or a round robin (pooled)")
    rows = [(label, s["win"]["mean"], *s["win"]["ci95"]) for label, s in zip(labels, stats, strict=True)]
    return title, n, rows


def plot_results(results: Sequence[dict[str, Any]], out: str | Path) -> Path:
    """One panel per result: each player's win rate with its 95% interval, best on top."""
    plt = _pyplot()
    panels = [win_rates(r) for r in results]
    height = sum(0.45 * len(rows) + 1.0 for _, _, rows in panels)
    figure, axes = plt.subplots(
        len(panels), 1, figsize=(7.5, max(2.5, height)), squeeze=False, height_ratios=[len(p[2]) + 1 for p in panels]
    )
    for axis, (title, n, rows) in zip(axes[:, 0], panels, strict=True):
        rows = sorted(rows, key=lambda row: row[1])
        y = range(len(rows))
        means = [row[1] for row in rows]
        errors = [[row[1] - row[2] for row in rows], [row[3] - row[1] for row in rows]]
        axis.errorbar(means, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
        axis.axvline(1 / n, linestyle="--", color="grey", linewidth=1, label=f"fair share 1/{n}")
        axis.set_yticks(list(y), [row[0] for row in rows])
        axis.set_xlim(0, 1)
        axis.set_title(title, fontsize=10)
        axis.legend(loc="lower right", fontsize=8)
        axis.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("win rate (95% interval)")
    return _save(figure, out)


def plot_run(
    run_dir: str | Path, out: str | Path, references: Sequence[dict[str, Any]] = (), wall_time: bool = False
) -> Path:
    """A run's evaluations over training: the learner's win rate against each evaluation table,
    with its 95% interval as a band (with ``eval.held_out``, also on the held-out deals, dashed);
    each reference (a saved lineup result) adds a line at its first player's win rate, e.g.
    ``passive`` against the same opponents. ``wall_time`` adds a second panel with the same curves
    over the run's wall-clock minutes (``elapsed_seconds``)."""
    plt = _pyplot()
    run_dir = Path(run_dir)
    path = run_dir / "evaluations.json"
    if not path.is_file():
        raise ValueError(f"no evaluations in {run_dir}: {path} is missing")
    history = read_json(path, "evaluation history")
    if not isinstance(history, list) or not history:
        raise ValueError(f"{path} holds no evaluations")
    n = _num_players(run_dir)
    panels = [("learner steps", [h["timesteps"] for h in history])]
    if wall_time:
        panels.append(("wall-clock minutes", [h["elapsed_seconds"] / 60 for h in history]))
    figure, axes = plt.subplots(1, len(panels), figsize=(7.5 * len(panels), 4), squeeze=False)
    for axis, (xlabel, xs) in zip(axes[0], panels, strict=True):
        _curves(axis, history, xs, references, n)
        axis.set_xlabel(xlabel)
        axis.set_title(f"{run_dir.name}: evaluations during training, by {xlabel}", fontsize=10)
    return _save(figure, out)


def _curves(axis: Any, history: list[dict[str, Any]], xs: list[float], references, n: int | None) -> None:
    for table in history[0]["results"]:
        rates = [h["results"][table]["win_rate"] for h in history]
        # Wilson's interval from the rate and the game count (runs saved before the project used it
        # for rates hold a normal interval in win_ci95).
        bounds = [wilson(h["results"][table]["win_rate"], h["results"][table]["games"]) for h in history]
        low, high = [b[0] for b in bounds], [b[1] for b in bounds]
        games = history[-1]["results"][table]["games"]
        axis.plot(xs, rates, marker="o", label=f"{table} ({games} games each)")
        axis.fill_between(xs, low, high, alpha=0.2)
    held = [(x, h["held_out"]) for x, h in zip(xs, history, strict=True) if isinstance(h.get("held_out"), dict)]
    if held:  # eval.held_out: the first table on deals the pick of the best model never sees
        rates = [r["win_rate"] for _, r in held]
        bounds = [wilson(r["win_rate"], r["games"]) for _, r in held]
        label = f"{held[-1][1]['table']}, held-out deals ({held[-1][1]['games']} games each)"
        line = axis.plot([x for x, _ in held], rates, marker="s", linestyle="--", label=label)[0]
        axis.fill_between([x for x, _ in held], *zip(*bounds, strict=True), alpha=0.1, color=line.get_color())
    for reference, colour in zip(references, ("tab:red", "tab:purple", "tab:brown"), strict=False):
        _, _, rows = win_rates(reference)
        label, rate, low, high = rows[0]
        others = ", ".join(str(o) for o in reference["labels"][1:])
        axis.axhline(
            rate, color=colour, linewidth=1, label=f"{label} against {others}: {rate:.3f} ({reference['games']} games)"
        )
        axis.axhspan(low, high, color=colour, alpha=0.1)
    if n:
        axis.axhline(1 / n, linestyle="--", color="grey", linewidth=1, label=f"fair share 1/{n}")
    axis.set_ylabel("win rate (95% interval)")
    axis.set_ylim(0, 1)
    axis.legend(fontsize=8)
    axis.grid(alpha=0.3)


def plot_runs(histories: Sequence[tuple[str, list[dict[str, Any]]]], out: str | Path, fair: float | None) -> Path:
    """Several runs side by side (e.g. one recipe on two devices): each run's win rate on its first
    evaluation table with its 95% band, by learner steps and by wall-clock minutes; a third panel
    where a run has ``vs_reference`` (``eval.reference``): its paired difference from that player in
    the learner's seat on the same deals, with its interval."""
    plt = _pyplot()
    paired = any("vs_reference" in h for _, history in histories for h in history)
    panels = ["learner steps", "wall-clock minutes"] + (["paired"] if paired else [])
    figure, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.2), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (label, history) in enumerate(histories):
        colour = colours[k % len(colours)]  # one colour per run in every panel
        table = next(iter(history[0]["results"]))
        rates = [h["results"][table]["win_rate"] for h in history]
        bounds = [wilson(h["results"][table]["win_rate"], h["results"][table]["games"]) for h in history]
        for axis, xs in zip(
            axes[0], ([h["timesteps"] for h in history], [h["elapsed_seconds"] / 60 for h in history]), strict=False
        ):
            axis.plot(xs, rates, marker="o", markersize=3, color=colour, label=f"{label}: {table}")
            axis.fill_between(xs, *zip(*bounds, strict=True), alpha=0.15, color=colour)
        with_reference = [h for h in history if "vs_reference" in h]
        if paired and with_reference:
            minutes = [h["elapsed_seconds"] / 60 for h in with_reference]
            difference = [h["vs_reference"]["difference"] for h in with_reference]
            low = [h["vs_reference"]["ci95"][0] for h in with_reference]
            high = [h["vs_reference"]["ci95"][1] for h in with_reference]
            player = with_reference[0]["vs_reference"]["player"]
            axes[0][2].plot(
                minutes, difference, marker="o", markersize=3, color=colour, label=f"{label}: less {player} in its seat"
            )
            axes[0][2].fill_between(minutes, low, high, alpha=0.15, color=colour)
    for axis, xlabel in zip(axes[0], panels, strict=True):
        if xlabel == "paired":
            axis.axhline(0.0, linestyle="--", color="grey", linewidth=1)
            axis.set_xlabel("wall-clock minutes")
            axis.set_ylabel("win rate difference, same seat, same deals (95%)")
            axis.set_title("paired with the reference player", fontsize=10)
        else:
            if fair:
                axis.axhline(fair, linestyle="--", color="grey", linewidth=1, label=f"fair share {fair:.2f}")
            axis.set_xlabel(xlabel)
            axis.set_ylabel("win rate (95% interval)")
            axis.set_title(f"by {xlabel}", fontsize=10)
            if xlabel == "wall-clock minutes":
                axis.set_xscale("log")
        axis.legend(fontsize=7)
        axis.grid(alpha=0.3)
    return _save(figure, out)


def _history(path: str) -> list[dict[str, Any]]:
    """An evaluation history: a run folder's evaluations.json, or such a file itself."""
    file = Path(path) / "evaluations.json" if Path(path).is_dir() else Path(path)
    history = read_json(file, "evaluation history")
    if not isinstance(history, list) or not history:
        raise ValueError(f"{file} holds no evaluations")
    return history


def _num_players(run_dir: Path) -> int | None:
    config = run_dir / "config.yaml"
    if not config.is_file():
        return None
    data = read_yaml(config, "run config") or {}
    game = data.get("game") if isinstance(data, dict) else None
    count = (game if isinstance(game, dict) else {}).get("num_players", 5)
    return count if count in PLAYER_COUNTS else None  # a list of counts: no single fair share


def _save(figure: Any, out: str | Path) -> Path:
    """The figure laid out, written whole to ``out`` (its folder made; a temporary file renamed
    over it: :func:`ckc_env.files.atomic_output`) and closed."""
    import matplotlib.pyplot as plt

    out = check_plot(out, "the picture")
    figure.tight_layout()
    try:
        with atomic_output(out, out.suffix) as temporary:
            figure.savefig(temporary, dpi=110, format=out.suffix.lower().lstrip("."))
    finally:
        plt.close(figure)
    return out


def _load(path: str) -> dict[str, Any]:
    return read_json(path, "result file")


def plot_best_responses(results: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """Best responses' learning curves (``best_response.json``): the learner's paired gain over the
    fixed player in its seat on the evaluation deals, with its 95% interval, by steps; one panel per
    player count, and each run's held-out gain (best model) drawn at its last step."""
    plt = _pyplot()
    counts = sorted({r["num_players"] for r in results})
    figure, axes = plt.subplots(1, len(counts), figsize=(5.0 * len(counts), 3.8), squeeze=False)
    for axis, n in zip(axes[0], counts, strict=True):
        for r in (r for r in results if r["num_players"] == n):
            steps = [p["timesteps"] for p in r["curve"]]
            mean = [p["gain"]["mean"] for p in r["curve"]]
            low = [p["gain"]["ci95"][0] for p in r["curve"]]
            high = [p["gain"]["ci95"][1] for p in r["curve"]]
            start = "scratch" if r["start"] == "scratch" else ("itself" if r["start"] == r["player"] else "the agent")
            (line,) = axis.plot(steps, mean, marker="o", ms=3, label=f"vs {Path(r['player']).name}, from {start}")
            axis.fill_between(steps, low, high, color=line.get_color(), alpha=0.15)
            held = r["held_out"]["best"]["gain"]
            axis.errorbar(
                [steps[-1] * 1.03],
                [held["mean"]],
                yerr=[[held["mean"] - held["ci95"][0]], [held["ci95"][1] - held["mean"]]],
                fmt="s",
                color=line.get_color(),
                capsize=3,
            )
        axis.axhline(0.0, color="grey", lw=0.8, ls="--")
        axis.set_title(f"{n} players (squares: held-out deals, best model)", fontsize=9)
        axis.set_xlabel("learner steps")
        axis.set_ylabel("gain over the player in its seat (paired)")
        axis.legend(fontsize=7)
        axis.grid(alpha=0.3)
    return _save(figure, path)


def plot_ladders(ladders: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """Each count's ratings, mu with mu ± Z95 sigma (1.96), highest at the top, one panel per count."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, len(ladders), figsize=(5.2 * len(ladders), 0.42 * len(ladders[0]["ratings"]) + 1.6))
    axes = axes if len(ladders) > 1 else [axes]
    for axis, ladder in zip(axes, ladders, strict=True):
        rows = ladder["ratings"][::-1]
        mu = [r["mu"] for r in rows]
        axis.errorbar(mu, range(len(rows)), xerr=[Z95 * r["sigma"] for r in rows], fmt="o", capsize=3)
        axis.set_yticks(range(len(rows)), [Path(r["player"]).name for r in rows], fontsize=8)
        check = ladder["held_out"]
        skill = f"held out: Brier skill {check['brier_skill']:+.3f}" if check else "no held-out tables"
        axis.set_title(f"{ladder['num_players']} players: {ladder['rated_games']} games rated\n{skill}", fontsize=9)
        axis.set_xlabel("OpenSkill mu (± 1.96 sigma)")
        axis.grid(axis="x", alpha=0.3)
    return _save(figure, path)
