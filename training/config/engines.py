"""What each trainer trains, declared in one place: a config that asks an engine for a feature it
does not train is refused here, by name, with what to do instead (checked with the config, before
anything is built).

| feature | sb3 | jax |
|---|---|---|
| behaviour cloning (``pretrain.teacher``) | yes | no: clone on sb3, then ``init_from`` |
| duplicate rewards (``duplicate``) | yes | no |
| the asymmetric critic (``critic_state``) | yes | no |
| fitting the critic first (``finetune.critic_fit``) | yes | no: ``finetune.critic_warmup`` |
| self-play snapshots (``self``) | yes | yes, with ``vector.loop: decision`` |
| a population's ``self`` members | yes | yes, with ``vector.loop: decision`` |
| self-play with shared parameters (``self_play.shared``) | no | yes, with ``vector.loop: decision`` |
| one decision per step (``vector.loop: decision``) | no | yes |
| second-order beliefs (``belief_features: second_order``) | yes | no |
| worker processes (``vector.workers`` > 1) | yes | no: one process on the device |
| minibatches that do not divide the rollout | yes | no: fixed shapes |
"""

from __future__ import annotations

from typing import Any

from ckc_env.table.options import fail

REFUSED: dict[str, dict[str, str]] = {
    "sb3": {
        "self_play.shared": "the learner holds several seats on the device path only (engine: jax, vector.loop: decision)",
        "vector.loop": "one decision per step is the device path's loop (engine: jax)",
    },
    "jax": {
        "pretrain.teacher": "clone on the SB3 path (engine: sb3), then start this run from it with init_from",
        "duplicate": "duplicate rewards are played on the NumPy engine only (engine: sb3)",
        "critic_state": "the asymmetric critic is trained on the NumPy engine only (engine: sb3)",
        "finetune.critic_fit": "fit the critic on the SB3 path, or use finetune.critic_warmup here",
        "self": (
            "on the device self-play runs one decision per step (vector.loop: decision): its self seats played "
            "by the learner's snapshots, or by the learner itself with self_play.shared: true"
        ),
    },
}
"""engine -> the features it does not train, with what to do instead."""


def asked(config: Any) -> dict[str, bool]:
    """Which of the features an engine may refuse the config asks for."""
    return {
        "pretrain.teacher": config.pretrain.teacher is not None,
        "duplicate": config.duplicate is not None,
        "critic_state": config.critic_state,
        "finetune.critic_fit": config.finetune.critic_fit > 0,
        "self": config.uses_self_play and not (config.vector is not None and config.vector.loop == "decision"),
        "self_play.shared": config.self_play.shared,
        "vector.loop": config.vector is not None and config.vector.loop == "decision",
    }


def check(config: Any) -> None:
    """A ValueError naming the first feature the config's engine does not train."""
    refused = REFUSED[config.engine]
    for key, given in asked(config).items():
        if given and key in refused:
            what = {"self": "self-play opponents (self)"}.get(key, key)
            raise ValueError(f"engine: {config.engine} does not train with {what}: {refused[key]}")
    if config.engine != "jax":
        return
    if config.vector.workers != 1:
        fail(
            "vector.workers", config.vector.workers, "1 with engine: jax (its games run on the device, in one process)"
        )
    decision = config.vector.loop == "decision"
    if config.self_play.shared and not decision:
        fail("self_play.shared", True, "false, or true with vector.loop: decision (the learner at several seats)")
    if config.self_play.shared and config.population is not None:
        fail("self_play.shared", True, "false with a population (its self members are snapshots)")
    if decision and config.finetune.kl_to_start > 0:
        fail(
            "finetune.kl_to_start",
            config.finetune.kl_to_start,
            "0 with vector.loop: decision (the pull to the start runs on the learner's view)",
        )
    if decision and config.belief_features == "players":
        fail("belief_features", "players", "false or true with vector.loop: decision (a reading per seat: not kept)")
    if config.belief_features == "second_order":
        fail(
            "belief_features", "second_order", "false, true or 'players' with engine: jax (no JAX second-order reader)"
        )
    n_steps = config.ppo.get("n_steps", 2048)
    batch = config.ppo.get("batch_size", 64)
    rollout = n_steps * config.vector.num_envs
    if rollout % batch:
        divisors = [d for d in (256, 512, 1024, 2048, 4096, 8192, 16384) if rollout % d == 0 and d <= rollout]
        fail(
            "ppo.batch_size",
            batch,
            f"a divisor of n_steps x vector.num_envs = {rollout} with engine: jax (fixed-shape minibatches), e.g. {divisors}",
        )
