"""What every training command checks before the disk changes: the players a config names (a zip
only with trust; a batched or a JAX form where the trainer needs one), ``init_from``'s agent file,
the extras the config's trainer needs, and a resumed run's snapshots and resume point. A failed
check is a ValueError naming the key; the commands end with exit status 2 and nothing written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ckc_env import cli, players
from ckc_env.files import InputError, short
from ckc_env.players import specs
from ckc_env.players.loading import locate
from ckc_env.table.options import is_per_count

from ..config import TrainConfig, specs_named


def check_players(config: TrainConfig, trust_checkpoint: bool) -> None:
    """Every player the config names, checked before anything runs (a zip only with trust); on the
    vector path the opponents and the teacher must have a batched form."""
    named = [
        *(("opponents", s) for s in specs_named(config.opponents)),
        *(
            (f"population.members[{k}]", s)
            for k, member in enumerate(config.population.members if config.population is not None else [])
            if member != specs.SELF
            for s in specs_named(member)
        ),
        *((f"eval.opponents.{name}", s) for name, table in config.eval.opponents.items() for s in specs_named(table)),
        *([("eval.reference", config.eval.reference)] if config.eval.reference is not None else []),
    ]
    if config.pretrain.teacher is not None:
        named.extend(("pretrain.teacher", s) for s in specs_named(config.pretrain.teacher))
    for key, spec in named:
        try:
            players.validate(spec, allow_self=True, trust_checkpoint=trust_checkpoint)
        except ValueError as exc:
            raise ValueError(f"{key}: {exc}") from None
    if config.init_from is not None:
        from ..imitation.finetune import check_init_from

        check_init_from(config.init_from, config)
    if config.engine == "jax":  # every player of the run plays on the JAX engine
        from ckc_env.jax.tournament import jax_form

        for key, spec in named:
            if key != "pretrain.teacher" and specs.parse(spec, allow_self=True).kind != "self":
                try:
                    jax_form(spec, trust_checkpoint)
                except ValueError as exc:
                    raise ValueError(f"{key}: {exc} (engine: jax plays players with a JAX form only)") from None
        return
    if config.vector is not None:
        teacher = config.pretrain.teacher
        if teacher is not None and is_per_count(teacher):
            raise ValueError(
                f"pretrain.teacher={short(teacher)}: vector training takes one teacher for every player count "
                "(a teacher per count is for the scalar path, without the vector section)"
            )
        for key, spec in [
            *(("opponents", s) for s in specs_named(config.opponents)),
            *(("population.members", s) for s in config.population_specs),
            ("pretrain.teacher", teacher),
        ]:
            if spec is None:
                continue
            try:
                players.build_batched(spec, seed=0, trust_checkpoint=trust_checkpoint)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc} (vector training plays batched players only)") from None


def check_snapshots(folder: Path, config: TrainConfig, trust_checkpoint: bool = False) -> None:
    """A resumed self-play run's frozen selves: each ``snapshot_*.json`` must be a safe agent file
    (by the loading rule, links resolved; never a zip, whatever the trust) that loads as it will play."""
    if not config.uses_self_play or not folder.is_dir():
        return
    from ckc_env.players.policy import check_checkpoint

    for path in sorted(folder.glob("snapshot_*.json")):
        source = locate(path)
        if source.kind != "card":
            raise InputError(f"self-play snapshot {path} is not a safe agent file")
        check_checkpoint(source)


def need_extras(config: TrainConfig) -> None:
    """The extra a config's trainer needs (a ValueError naming it): ``train`` (torch, stable-baselines3)
    or, with ``engine: jax``, ``jax`` (jax, optax)."""
    if config.engine == "jax":
        cli.need_extra("jax", "jax", "optax")
    else:
        cli.need_extra("train", "torch", "stable_baselines3", "sb3_contrib")


def jax_resume_point(run_dir: Path, history: list[dict[str, Any]], config: TrainConfig) -> Path:
    """The train state a JAX run continues (``train_state.safetensors``), checked whole against the
    run's config (names, dtypes, shapes, finite values, the key) before anything is compiled;
    refused where it is missing, does not fit, or is older than the run's last evaluation."""
    from ..trainers.jax.state import STATE_FILE, check_state

    path = run_dir / STATE_FILE
    if not os.path.lexists(path):
        raise InputError(
            f"--resume {run_dir}: no {STATE_FILE} to resume; to continue from the exported agent, start a new run "
            f"with init_from: {run_dir}/final_model.json"
        )
    at = check_state(path, config)
    if history and history[-1]["timesteps"] > at:
        raise InputError(
            f"--resume {run_dir}: {STATE_FILE} is at step {at:,}, its evaluations.json goes to step "
            f"{history[-1]['timesteps']:,}. Start a new run with init_from: {run_dir}/final_model.json"
        )
    return path
