"""Export stable-baselines3 checkpoints to the safe agent format (``ckc_env.players.agent_file``).

    ckc-export checkpoints/ppo_5p_distilled --trust-checkpoint      # a run folder: its best and final model
    ckc-export model.zip --players 5 --trust-checkpoint             # model.json + model.safetensors beside it
    ckc-export model.zip --players 3 4 5 --out agents/mine --trust-checkpoint

(``ckc-export`` is ``python -m ckc_env.training.commands.export``.)

Reading a zip means unpickling it, and the cloudpickle fields of its ``data`` member can run any
code (stable-baselines3 issue 2281): the command runs only with ``--trust-checkpoint`` (or
``CKC_TRUST_CHECKPOINTS=1``), so export only files you trust. What it writes loads without
running anything. Each export is checked: the safe network's logits are compared with the
model's own on random observations.

The card records the player counts the model was trained for: from the run's ``config.yaml``
beside the zip, else ``--players``. From a run folder it also records the training config and
seed, and the evaluation at the model's timesteps (``evaluations.json``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ckc_env import cli
from ckc_env.config import PLAYER_COUNTS
from ckc_env.files import check_output, read_json
from ckc_env.players import agent_file, loading
from ckc_env.players.policy import load_sb3

from ..config import TrainConfig, load_config

MODELS = ("best_model.zip", "final_model.zip", "latest_model.zip")
"""The zips a run folder may hold, exported together."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckc-export", description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", help="a stable-baselines3 MaskablePPO .zip, or a run folder holding them")
    parser.add_argument("--out", metavar="PREFIX", help="for one zip: write PREFIX.json and PREFIX.safetensors")
    parser.add_argument("--players", type=int, nargs="+", metavar="N", help="player counts it was trained for")
    parser.add_argument(
        "--trust-checkpoint", action="store_true", help="required: reading the zip unpickles it, which can run code"
    )
    return parser


def run_config(folder: Path) -> TrainConfig | None:
    """The training config of the run folder a zip sits in, if it has one."""
    path = folder / "config.yaml"
    return load_config(path) if path.is_file() else None


def evaluation_at(folder: Path, config: TrainConfig | None, timesteps: int) -> dict[str, Any] | None:
    """The run's evaluation of the model at ``timesteps`` (``evaluations.json``), as training records it."""
    from ..evaluation import evaluation_record

    path = folder / "evaluations.json"
    if config is None or not path.is_file():
        return None
    return evaluation_record(config, read_json(path, "evaluation history"), timesteps)


def export(zip_path: Path, prefix: Path, players: list[int] | None) -> tuple[Path, float]:
    """Export one zip the caller trusts; returns the card's path and the largest logit difference found."""
    model = load_sb3(zip_path, trust_checkpoint=True)
    config = run_config(zip_path.parent)
    if players is None:
        if config is None:
            raise ValueError(f"{zip_path} has no config.yaml beside it: say which player counts with --players")
        players = list(config.player_counts)
    if any(n not in PLAYER_COUNTS for n in players):
        raise ValueError(f"--players {players}: accepted player counts are {list(PLAYER_COUNTS)}")
    training = {"source": zip_path.name}
    if config is not None:
        from ..run.folder import training_record

        training.update(training_record(config))
    evaluation = evaluation_at(zip_path.parent, config, int(model.num_timesteps))
    card = agent_file.save_sb3(model, prefix, players, training, evaluation)
    return card, logit_difference(model, agent_file.load_agent(card))


def logit_difference(model, network: agent_file.PolicyNetwork, rows: int = 256) -> float:
    """The largest difference between the model's logits and the exported network's, on random
    observations within the layout's bounds."""
    import torch

    low, high = network.layout.bounds()
    observations = np.random.default_rng(0).uniform(low, high, (rows, len(low))).astype(np.float32)
    policy = model.policy
    with torch.no_grad():
        features = policy.extract_features(torch.as_tensor(observations), policy.pi_features_extractor)
        expected = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
    return float(np.abs(network.logits(observations) - expected).max())


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    source = Path(args.source)
    try:
        if source.is_dir():
            zips = [source / name for name in MODELS if (source / name).is_file()]
            if not zips:
                raise ValueError(f"run folder {source} holds none of {list(MODELS)}")
            if args.out:
                raise ValueError("--out names the files of one zip: give a .zip, not a run folder")
        elif source.suffix == ".zip" and source.is_file():
            zips = [source]
        else:
            raise ValueError(f"no stable-baselines3 .zip or run folder at {source}")
        if args.players is not None and any(n not in PLAYER_COUNTS for n in args.players):
            raise ValueError(f"--players {args.players}: accepted player counts are {list(PLAYER_COUNTS)}")
        prefixes = [Path(args.out) if args.out else zip_path.with_suffix("") for zip_path in zips]
        for prefix in prefixes:  # before a zip is read: the files it will write
            for suffix in (".json", ".safetensors"):
                check_output(f"{prefix}{suffix}", "--out" if args.out else "the export")
        if not loading.trusted(args.trust_checkpoint):
            raise loading.untrusted_error(zips[0])
        for zip_path, prefix in zip(zips, prefixes, strict=True):
            card, difference = export(zip_path, prefix, args.players)
            cli.say(
                f"{zip_path} -> {card} and {card.with_suffix('.safetensors')} (largest logit difference {difference:.1e})"
            )
            if difference > 1e-4:
                raise ValueError(f"the export of {zip_path} does not reproduce its logits (difference {difference})")
    except ValueError as exc:
        cli.fail(parser, exc)


if __name__ == "__main__":
    main()
