"""The environments a training config describes: the batched engine's vector environment (its
``vector`` section: the NumPy engine, in this process or split across worker processes) and the
scalar single-agent environment (without it), with the config's opponents (``self`` seats playing
the learner's snapshots), reward, observation and game options. The trainers learn on them, and
behaviour cloning and the critic's fit collect on them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ckc_env.envs.subproc_vector import SubprocVectorEnv
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.seeding import derive_seed

from .config import TrainConfig


def make_vector_env(
    config, trust_checkpoint: bool = False, in_process: bool = False, league=None
) -> CheckpointCharlieVectorEnv | SubprocVectorEnv:
    """The vector environment a training config describes (its ``vector`` section, opponents, reward,
    observation and game options): with ``vector.workers`` > 1 its slots split across processes,
    unless ``in_process`` (callers that read the batch state, as ``collect_batched``). With a
    ``population`` section, the tables are the members of ``league`` (a
    :class:`~ckc_env.training.league.population.League`), or without one the config's tables alone."""
    kwargs = {
        "opponents": config.opponents,
        "learner_seat": config.learner_seat,
        "belief_features": config.belief_features,
        "reward": config.reward,
        "trust_checkpoint": trust_checkpoint,
        **config.game,
    }
    if getattr(config, "duplicate", None) is not None:
        kwargs["duplicate"] = config.duplicate
    if getattr(config, "critic_state", False):
        kwargs["critic_state"] = True
    if getattr(config, "population", None) is not None:
        from .league.population import tables_only

        del kwargs["opponents"]
        kwargs = {**kwargs, **(league.env_kwargs() if league is not None else tables_only(config))}
    if config.vector.workers > 1 and not in_process:
        return SubprocVectorEnv(config.vector.num_envs, workers=config.vector.workers, **kwargs)
    return CheckpointCharlieVectorEnv(config.vector.num_envs, **kwargs)


def make_single_env(config: TrainConfig, rank: int, snapshot_dir: Path | None, trust_checkpoint: bool = False) -> Any:
    """One scalar single-agent environment of the config (its ``rank``-th, seeded from the run's
    seed), reset: ``self`` opponents draw the learner's snapshots from ``snapshot_dir``."""
    from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent

    from .league.self_play import SnapshotOpponents

    opponents = config.opponents
    if config.uses_self_play and len(config.player_counts) == 1:  # seeded as before several counts existed
        opponents = SnapshotOpponents.specs(
            config.opponents, snapshot_dir, seed=derive_seed(config.seed, "self_play", rank)
        )
    elif config.uses_self_play:
        opponents = {
            n: SnapshotOpponents.specs(
                config.opponents_at(n), snapshot_dir, seed=derive_seed(config.seed, "self_play", rank, n)
            )
            for n in config.player_counts
        }
    env = CheckpointCharlieSingleAgent(
        opponents=opponents,
        learner_seat=config.learner_seat,
        belief_features=config.belief_features,
        reward=config.reward,
        trust_checkpoint=trust_checkpoint,
        **config.game,
    )
    env.reset(seed=derive_seed(config.seed, "env", rank))
    return env
