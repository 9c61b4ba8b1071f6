"""What a best response is measured by: its learning curve (each evaluation paired with the fixed
player in the learner's seat), its best and final models against the fixed player's table on
held-out deals, paired with the player in the same seat (and with the start, from an agent file
other than the player), and the published table of them (docs/evaluation.md). ``ckc-best-response``
(:mod:`training.commands.best_response`) trains the learner and writes ``best_response.json``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ckc_env.evaluation.paired import PairedResult
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.files import write_atomic


def curve(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The learning curve: each evaluation's win rate and its paired gain over the fixed player on
    the evaluation deals (``vs_reference``)."""
    points = []
    for entry in history:
        gain = entry.get("vs_reference", {})
        points.append(
            {
                "timesteps": entry["timesteps"],
                "elapsed_seconds": entry.get("elapsed_seconds"),
                "win_rate": entry["results"]["vs_player"]["win_rate"],
                "gain": {"mean": gain.get("difference"), "ci95": gain.get("ci95")},
            }
        )
    return points


def held_out(
    run_dir: Path,
    player: Any,
    num_players: int,
    games: int,
    seed: int,
    trust: bool,
    engine: str,
    progress: bool,
    start: str | None = None,
) -> dict[str, Any]:
    """The best and the final model each against the fixed player's table on ``games`` deals of
    ``seed``, paired with the fixed player in the same seat (its games played once); with a
    ``start`` file other than the player, the start too, and each model's gain over it (what the
    training found beyond its start)."""
    config = {"num_players": num_players}
    others = [player] * (num_players - 1)

    def play(spec: Any):
        return run_tournament(
            [spec, *others],
            games,
            seed,
            fixed_first=True,
            config=config,
            progress=progress,
            trust_checkpoint=trust,
            engine=engine,
        )

    def figures(paired: PairedResult) -> dict[str, Any]:
        gain = paired.difference("win")
        return {"mean": gain.mean, "ci95": [gain.low, gain.high]}

    started = time.time()
    reference = play(player)
    out: dict[str, Any] = {"games": reference.games, "seed": seed, "player_win_rate": reference.stats()[0]["win"].mean}
    begun = play(start) if start is not None and start != player else None
    if begun is not None:
        paired = PairedResult(begun, reference)
        write_atomic(run_dir / "held_out_start.json", json.dumps(paired.to_json(), indent=2))
        out["start"] = {
            "win_rate": begun.stats()[0]["win"].mean,
            "gain": figures(paired),
            "file": "held_out_start.json",
        }
    for name in ("best", "final"):
        model = play(str(run_dir / f"{name}_model.json"))
        paired = PairedResult(model, reference)
        write_atomic(run_dir / f"held_out_{name}.json", json.dumps(paired.to_json(), indent=2))
        out[name] = {"win_rate": model.stats()[0]["win"].mean, "gain": figures(paired), "file": f"held_out_{name}.json"}
        if begun is not None:
            out[name]["over_start"] = figures(PairedResult(model, begun))
    out["seconds"] = round(time.time() - started, 1)
    return out


def describe(result: dict[str, Any]) -> str:
    """One paragraph: the held-out gains of the best and final models, with their intervals."""
    held = result["held_out"]
    lines = [
        f"best response to {result['player']} at {result['num_players']} players, start {result['start']}, "
        f"{result['steps']:,} steps (seed {result['seed']}); {held['games']} held-out games, the player "
        f"wins {held['player_win_rate']:.3f} in the learner's seat"
    ]
    for name in ("best", "final"):
        gain = held[name]["gain"]
        lines.append(
            f"  {name} model: wins {held[name]['win_rate']:.3f}, gain {gain['mean']:+.4f} "
            f"[{gain['ci95'][0]:+.4f}, {gain['ci95'][1]:+.4f}]"
        )
    return "\n".join(lines)


def markdown(results: list[dict[str, Any]]) -> str:
    """The published table of best responses (``best_response.json`` records), one row each: the
    held-out gains of the best and final models over the player with their paired intervals, the
    best model's gain over its start (from an agent file other than the player), and the wall times."""
    rows = [
        "| fixed player | players | start | steps | the player's win rate in the seat | best model's gain "
        "(held out, paired) | final model's gain | best model over its start | games | wall time (training + held out) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        held = r["held_out"]
        start = r["start"] if r["start"] == "scratch" else ("itself" if r["start"] == r["player"] else r["start"])
        gains = [_signed(held[name]["gain"]) for name in ("best", "final")]
        over = _signed(held["best"]["over_start"]) if "over_start" in held["best"] else "-"
        seconds = r["wall_seconds"]["training"] + r["wall_seconds"]["held_out"]
        rows.append(
            f"| {r['player']} | {r['num_players']} | {start} | {r['steps']:,} | {held['player_win_rate']:.3f} | "
            f"{gains[0]} | {gains[1]} | {over} | {held['games']} | {seconds / 60:.0f} min |"
        )
    return "\n".join(rows)


def _signed(gain: dict[str, Any]) -> str:
    low, high = gain["ci95"]
    text = f"{gain['mean']:+.3f} [{low:+.3f}, {high:+.3f}]"
    return f"**{text}**" if low > 0 else text
