"""One PPO iteration as one pure function (PureJaxRL's shape): ``ppo.n_steps`` learner steps of
``vector.num_envs`` games (``lax.scan`` over :func:`ckc_env.jax.vector_env.step`), GAE, then
``ppo.n_epochs`` passes of minibatches (``lax.scan`` over a permutation), Adam through optax, and
the fine-tuning pass (``kl_to_start``). MaskablePPO's algorithm, argument for argument: illegal
actions masked to -1e8 before the softmax, the clipped surrogate, the value loss (clipped with
``clip_range_vf``), the entropy bonus, advantages normalised per minibatch, gradients clipped at
``max_grad_norm``, Adam with eps 1e-5, ``target_kl`` stopping an iteration's epochs."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from ...config import TrainConfig
from .network import Hyper

MASKED = -1e8
"""sb3-contrib's masked logit: illegal actions get no probability and no entropy."""


class Runner(NamedTuple):
    """Everything one PPO iteration reads and writes (a pytree, the carry of the compiled chunks)."""

    params: Any
    opt_state: Any
    env_state: Any
    obs: Any
    mask: Any
    key: Any
    timesteps: Any  # float32: the learner steps so far (for the schedules; the host keeps the exact count)
    start: Any  # the start policy (kl_to_start), else None


class Transition(NamedTuple):
    obs: Any
    mask: Any
    action: Any
    log_prob: Any
    value: Any
    reward: Any
    done: Any


def masked_log_probs(logits: Any, mask: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return jax.nn.log_softmax(jnp.where(mask, logits, MASKED), axis=-1)


def make_optimizer(hyper: Hyper):
    import optax

    return optax.chain(optax.clip_by_global_norm(hyper.max_grad_norm), optax.adam(hyper.learning_rate, eps=1e-5))


class Normalisers(NamedTuple):
    """What a weighted minibatch's means divide by, and its advantages' mean and scale: computed once
    for the whole minibatch, so that its loss taken part by part adds up to the whole one's."""

    total: Any
    advantage_mean: Any
    advantage_scale: Any


def normalisers(advantage: Any, weight: Any) -> Normalisers:
    """The :class:`Normalisers` of a minibatch's ``advantage`` with ``weight`` (0 or 1 per entry)."""
    import jax.numpy as jnp

    total = jnp.maximum(weight.sum(), 1.0)
    centre = jnp.sum(advantage * weight) / total
    scale = jnp.sqrt(jnp.sum((advantage - centre) ** 2 * weight) / total) + 1e-8
    return Normalisers(total, centre, scale)


def ppo_loss(
    hyper: Hyper, params: Any, data: tuple, weight: Any = None, norm: Normalisers | None = None
) -> tuple[Any, dict[str, Any]]:
    """MaskablePPO's loss on a minibatch ``(obs, mask, action, old log-prob, old value, advantage,
    target)`` and its figures; ``weight`` (0 or 1 per entry) leaves entries out of every mean (a
    minibatch of the one-decision-per-step loop past its last learner entry). With ``norm`` (the
    whole minibatch's :func:`normalisers`), ``data`` is a part of that minibatch and the loss and
    figures are its share of the whole's: the parts' sum."""
    import jax.numpy as jnp

    from ckc_env.jax import policy

    if weight is None:
        mean = jnp.mean
    else:
        if norm is None:
            norm = normalisers(data[5], weight)

        def mean(x: Any) -> Any:
            return jnp.sum(x * weight) / norm.total

    obs, mask, action, old_log_prob, old_value, advantage, target = data
    log_probs = masked_log_probs(policy.raw_logits(params, obs), mask)
    log_prob = jnp.take_along_axis(log_probs, action[:, None], axis=1)[:, 0]
    entropy = -jnp.sum(jnp.where(mask, jnp.exp(log_probs) * log_probs, 0.0), axis=-1)
    if hyper.normalize_advantage:
        if weight is None:
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        else:
            advantage = (advantage - norm.advantage_mean) / norm.advantage_scale
    log_ratio = log_prob - old_log_prob
    ratio = jnp.exp(log_ratio)
    clipped = jnp.clip(ratio, 1 - hyper.clip_range, 1 + hyper.clip_range)
    policy_loss = -mean(jnp.minimum(advantage * ratio, advantage * clipped))
    value = policy.values(params, obs)
    if hyper.clip_range_vf is not None:
        value = old_value + jnp.clip(value - old_value, -hyper.clip_range_vf, hyper.clip_range_vf)
    value_loss = mean((target - value) ** 2)
    entropy_loss = -mean(entropy)
    loss = policy_loss + hyper.ent_coef * entropy_loss + hyper.vf_coef * value_loss
    figures = {
        "policy_gradient_loss": policy_loss,
        "value_loss": value_loss,
        "entropy_loss": entropy_loss,
        "approx_kl": mean((ratio - 1) - log_ratio),
        "clip_fraction": mean((jnp.abs(ratio - 1) > hyper.clip_range).astype(jnp.float32)),
    }
    return loss, figures


def frozen_policy(updates: Any, warming: Any) -> Any:
    """The updates with the policy's part zeroed while ``warming`` (``finetune.critic_warmup``)."""
    import jax

    keep = 1.0 - warming.astype("float32")
    return type(updates)(jax.tree_util.tree_map(lambda u: u * keep, updates.policy), updates.value)


def make_update(env: Any, config: TrainConfig) -> Callable[[Runner], tuple[Runner, dict[str, Any]]]:
    """One PPO iteration as a pure function of the :class:`Runner`: the rollout, GAE, the epochs of
    minibatch updates, and the fine-tuning pass; it returns the iteration's figures (device scalars)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    from ckc_env.jax import policy
    from ckc_env.jax import vector_env as venv

    hyper = Hyper.of(config)
    tune = config.finetune
    optimizer = make_optimizer(hyper)
    size = config.vector.num_envs
    total = hyper.n_steps * size
    minibatches = total // hyper.batch_size
    members = env.members

    def rollout_step(carry: tuple, _: Any) -> tuple[tuple, tuple]:
        params, env_state, obs, mask, key = carry
        key, sample_key = jax.random.split(key)
        log_probs = masked_log_probs(policy.raw_logits(params, obs), mask)
        action = jax.random.categorical(sample_key, log_probs)
        log_prob = jnp.take_along_axis(log_probs, action[:, None], axis=1)[:, 0]
        value = policy.values(params, obs)
        env_state, out = venv.step(env, env_state, action)
        transition = Transition(obs, mask, action, log_prob, value, out.reward, out.done)
        games = (out.done, out.win_share, out.points, out.margin, out.member)
        return (params, env_state, out.obs, out.mask, key), (transition, games)

    def advantages(batch: Transition, last_value: Any) -> tuple[Any, Any]:
        def backwards(carry: tuple, step: tuple) -> tuple[tuple, Any]:
            gae, next_value = carry
            reward, done, value = step
            keep = 1.0 - done.astype(jnp.float32)
            delta = reward + hyper.gamma * next_value * keep - value
            gae = delta + hyper.gamma * hyper.gae_lambda * keep * gae
            return (gae, value), gae

        _, gaes = lax.scan(
            backwards, (jnp.zeros_like(last_value), last_value), (batch.reward, batch.done, batch.value), reverse=True
        )
        return gaes, gaes + batch.value

    def epochs(runner: Runner, data: tuple, key: Any) -> tuple[Runner, dict[str, Any]]:
        warming = runner.timesteps <= tune.critic_warmup
        grad = jax.grad(partial(ppo_loss, hyper), has_aux=True)

        def minibatch(carry: tuple, indices: Any) -> tuple[tuple, dict[str, Any]]:
            params, opt_state, going = carry
            grads, figures = grad(params, jax.tree_util.tree_map(lambda x: x[indices], data))
            if hyper.target_kl is not None:  # sb3: stop before the step once the KL passes 1.5 x target_kl
                going = going & (figures["approx_kl"] <= 1.5 * hyper.target_kl)
            updates, new_state = optimizer.update(grads, opt_state, params)
            updates = frozen_policy(updates, warming)
            import optax

            new_params = optax.apply_updates(params, updates)
            params = jax.tree_util.tree_map(lambda new, old: jnp.where(going, new, old), new_params, params)
            opt_state = jax.tree_util.tree_map(lambda new, old: jnp.where(going, new, old), new_state, opt_state)
            return (params, opt_state, going), figures

        def epoch(carry: tuple, epoch_key: Any) -> tuple[tuple, dict[str, Any]]:
            order = jax.random.permutation(epoch_key, total)[: minibatches * hyper.batch_size]
            return lax.scan(minibatch, carry, order.reshape(minibatches, hyper.batch_size))

        keys = jax.random.split(key, hyper.n_epochs)
        (params, opt_state, _), figures = lax.scan(epoch, (runner.params, runner.opt_state, jnp.bool_(True)), keys)
        figures = jax.tree_util.tree_map(jnp.mean, figures)
        figures["critic_warmup"] = warming.astype(jnp.float32)
        return runner._replace(params=params, opt_state=opt_state), figures

    def pull_towards_start(runner: Runner, data: tuple, key: Any) -> tuple[Runner, Any]:
        """``kl_to_start``: one pass of minibatch steps on ``c_t * KL(start || current)``."""
        t = runner.timesteps
        weight = (
            tune.kl_to_start if tune.kl_decay <= 0 else tune.kl_to_start * jnp.maximum(0.0, 1.0 - t / tune.kl_decay)
        )
        weight = jnp.where(t <= tune.critic_warmup, 0.0, weight)
        obs, mask = data[0], data[1]

        def divergence(params: Any, indices: Any) -> Any:
            start = jnp.exp(masked_log_probs(policy.raw_logits(runner.start, obs[indices]), mask[indices]))
            log_q = masked_log_probs(policy.raw_logits(params, obs[indices]), mask[indices])
            p_log_p = jnp.where(start > 0, start * jnp.log(jnp.where(start > 0, start, 1.0)), 0.0)
            return jnp.mean(jnp.sum(p_log_p - start * log_q, axis=-1))

        def minibatch(carry: tuple, indices: Any) -> tuple[tuple, Any]:
            params, opt_state = carry
            kl, grads = jax.value_and_grad(divergence)(params, indices)
            grads = jax.tree_util.tree_map(lambda g: g * weight, grads)
            updates, new_state = optimizer.update(grads, opt_state, params)
            import optax

            new_params = optax.apply_updates(params, updates)
            on = weight > 0
            params = jax.tree_util.tree_map(lambda new, old: jnp.where(on, new, old), new_params, params)
            opt_state = jax.tree_util.tree_map(lambda new, old: jnp.where(on, new, old), new_state, opt_state)
            return (params, opt_state), kl

        order = jax.random.permutation(key, total)[: minibatches * hyper.batch_size]
        (params, opt_state), kls = lax.scan(
            minibatch, (runner.params, runner.opt_state), order.reshape(minibatches, hyper.batch_size)
        )
        return runner._replace(params=params, opt_state=opt_state), (jnp.mean(kls), weight)

    def update(runner: Runner) -> tuple[Runner, dict[str, Any]]:
        key, rollout_key, epoch_key, kl_key = jax.random.split(runner.key, 4)
        carry = (runner.params, runner.env_state, runner.obs, runner.mask, rollout_key)
        (params, env_state, obs, mask, _), (batch, games) = lax.scan(rollout_step, carry, None, hyper.n_steps)
        last_value = policy.values(params, obs)
        advantage, target = advantages(batch, last_value)
        flat = lambda x: x.reshape((total, *x.shape[2:]))  # noqa: E731
        data = tuple(
            flat(x) for x in (batch.obs, batch.mask, batch.action, batch.log_prob, batch.value, advantage, target)
        )
        # the step count includes this rollout when the updates read it (SB3's num_timesteps in train())
        runner = runner._replace(env_state=env_state, obs=obs, mask=mask, key=key, timesteps=runner.timesteps + total)
        runner, figures = epochs(runner, data, epoch_key)
        if tune.kl_to_start > 0:
            runner, (kl, weight) = pull_towards_start(runner, data, kl_key)
            figures["kl_to_start"], figures["kl_weight"] = kl, weight
        variance = jnp.var(data[6])
        figures["explained_variance"] = jnp.where(variance > 0, 1 - jnp.var(data[6] - data[4]) / variance, jnp.nan)
        done, share, points, margin, member = games
        ended = done.astype(jnp.float32)
        figures["games"] = ended.sum()
        figures["win_share_sum"] = (share * ended).sum()
        figures["points_sum"] = (points * ended).sum()
        figures["margin_sum"] = (margin * ended).sum()
        figures["return_sum"] = (batch.reward).sum()
        figures["member_games"] = jax.ops.segment_sum(ended.ravel(), member.ravel(), members)
        figures["member_wins"] = jax.ops.segment_sum((share * ended).ravel(), member.ravel(), members)
        return runner, figures

    return update


def compile_chunk(env: Any, config: TrainConfig, iterations: int) -> Callable[[Runner], tuple[Runner, dict[str, Any]]]:
    """``iterations`` PPO iterations as one jitted call (``lax.scan`` over :func:`make_update`, or
    with ``vector.loop: decision`` over ``decisions.make_decision_update``)."""
    import jax

    if config.vector.loop == "decision":
        from .decisions import make_decision_update

        update = make_decision_update(env, config)
    else:
        update = make_update(env, config)
    return jax.jit(lambda runner: jax.lax.scan(lambda c, _: update(c), runner, None, iterations))
