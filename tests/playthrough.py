"""Golden playthroughs: seeded games written out decision by decision, to lock behaviour.

    python tests/playthrough.py          # rewrite tests/data/playthrough_*.txt after an intended change

Each decision is two lines: the agent, the decision kind, the legal actions (named), the action
taken (a seeded random choice) and the rewards it produced; then the acting agent's observation,
piece by piece (only pieces that are not all zero: one-hot and 0/1 pieces as the indices set,
other pieces as ``index:value``; seat-indexed pieces as ``+r:...`` per relative seat r). Each
round summary follows the decision that ended the round. A change shows in a diff as the pieces
and summary keys it touched.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import ckc_env
from ckc_env.engine.actions import DECISION_KINDS, action_to_string
from ckc_env.layout import Layout
from ckc_env.observation import OBSERVATION

DATA = Path(__file__).parent / "data"
CASES = {
    "5p_base": {"num_players": 5},
    "4p_stasi_adler": {"num_players": 4, "stasi": True, "cafe_adler": True, "window_order": "clockwise_from_drawer"},
    "3p_both_choose": {
        "num_players": 3,
        "stasi": True,
        "cafe_adler": True,
        "clue_face": "choose",
        "window_order": "clockwise_after_drawer",
        "non_accuser_white": "chief_uncaught",
    },
    "5p_reopen": {"num_players": 5, "reopen_windows": True, "window_order": "random"},
}


def _entries(values: np.ndarray) -> str:
    """The non-zero entries of a 1-d piece: indices for 0/1 values, else index:value."""
    hot = np.flatnonzero(values)
    if np.all(values[hot] == 1.0):
        return ",".join(str(i) for i in hot)
    return ",".join(f"{i}:{float(values[i]):.6g}" for i in hot)


def describe(layout: Layout, vector: np.ndarray) -> str:
    """The non-zero pieces of an observation vector, by name."""
    parts = []
    for piece in layout.pieces:
        values = layout.view(vector, piece.name)
        if not values.any():
            continue
        if values.ndim == 1:
            parts.append(f"{piece.name}={_entries(values)}")
        else:
            rows = [f"+{r}:{_entries(row)}" for r, row in enumerate(values) if row.any()]
            parts.append(f"{piece.name}=[{' '.join(rows)}]")
    return " ".join(parts)


def playthrough(config: dict, seeds: range = range(4)) -> str:
    return "".join(_one_game(config, seed) for seed in seeds)


def _one_game(config: dict, seed: int) -> str:
    env = ckc_env.raw_env(**config, summary_infos=True)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [f"config {json.dumps(config, sort_keys=True)} seed {seed}"]
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        action = int(rng.choice(legal))
        kind = DECISION_KINDS[env.game.pending_kind]
        env.step(action)
        rewards = {a: r for a, r in env.rewards.items() if r}
        named = ", ".join(f"{a} {action_to_string(a)}" for a in legal)
        lines.append(f"{agent} {kind} legal=[{named}] action={action} rewards={rewards}")
        lines.append(f"  {describe(OBSERVATION, obs['observation'])}")
        if "round_summary" in env.infos.get(agent, {}):
            lines.append("summary " + json.dumps(env.infos[agent]["round_summary"], sort_keys=True))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    DATA.mkdir(exist_ok=True)
    for name, config in CASES.items():
        (DATA / f"playthrough_{name}.txt").write_text(playthrough(config))
        print(f"wrote tests/data/playthrough_{name}.txt")
