"""Golden playthroughs: seeded games written out decision by decision, to lock behaviour.

    python tests/playthrough.py          # rewrite tests/data/playthrough_*.txt after an intended change

Each line is one decision: the agent, the decision kind, the legal actions, a digest of the
agent's observation, the action taken (a seeded random choice) and the rewards it produced; each
round summary follows the decision that ended the round.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

import ckc_env
from ckc_env.engine.actions import DECISION_KINDS

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
}


def playthrough(config: dict, seeds: range = range(4)) -> str:
    return "".join(_one_game(config, seed) for seed in seeds)


def _one_game(config: dict, seed: int) -> str:
    env = ckc_env.raw_env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [f"config {json.dumps(config, sort_keys=True)} seed {seed}"]
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        digest = hashlib.sha1(obs["observation"].tobytes()).hexdigest()[:12]
        action = int(rng.choice(legal))
        kind = DECISION_KINDS[env.game.pending_kind]
        env.step(action)
        rewards = {a: r for a, r in env.rewards.items() if r}
        lines.append(f"{agent} {kind} legal={legal} obs={digest} action={action} rewards={rewards}")
        if "round_summary" in env.infos.get(agent, {}):
            lines.append("summary " + json.dumps(env.infos[agent]["round_summary"], sort_keys=True))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    DATA.mkdir(exist_ok=True)
    for name, config in CASES.items():
        (DATA / f"playthrough_{name}.txt").write_text(playthrough(config))
        print(f"wrote tests/data/playthrough_{name}.txt")
