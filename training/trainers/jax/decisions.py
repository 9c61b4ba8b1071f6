"""One PPO iteration on the one-decision-per-step loop (``vector.loop: decision``): ``ppo.n_steps``
decisions of every game slot (``lax.scan`` over :func:`ckc_env.jax.table_env.step`), nothing
waiting for the slowest game; the learner's network decides wherever a seat is the learner's.

Each decision is kept with its game and seat (against bots the learner's as rows of the rollout,
:class:`Rows`, not an observation of every slot at every step). A seat's reward for a decision is
everything the scheme paid it from that decision to its next one (the rewards of the other seats'
decisions included), and its advantages run along its own decisions: a reverse scan carries, per
(game, seat), the reward gathered since, the next decision's value and advantage, reset where a
game ends; a seat still to decide when the rollout stops is bootstrapped with the value of its own
observation then.
The update is :mod:`.update`'s MaskablePPO on the learner's entries alone: they are shuffled to the
front of the rollout, only the minibatches of ``ppo.batch_size`` that hold learner entries are run
(a ``lax.while_loop`` per epoch) and the last one is weighted to its learner entries, its gradient
taken over the parts of its rows that hold them (:data:`PARTS`). An iteration's learner steps are
the learner's decisions in it (``figures["learner_steps"]``), whatever seats it held.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from ...config import TrainConfig
from .network import Hyper
from .update import Runner, frozen_policy, make_optimizer, masked_log_probs, normalisers, ppo_loss


class Decided(NamedTuple):
    """One step of every game slot, as the rollout keeps it ((T, B, ...) once scanned); the
    observations, legal actions, actions and log-probabilities are kept here only where every slot
    is a row (self-play), else in the rollout's :class:`Rows` (None here)."""

    obs: Any
    mask: Any
    action: Any
    log_prob: Any
    value: Any  # the learner's value of its decision (0 where the slot's seat is not the learner's)
    learner: Any  # bool: the learner's entry
    seat: Any  # the acting seat
    reward: Any  # (B, 5): every seat's reward of the step
    done: Any


class Rows(NamedTuple):
    """The learner's decisions of a rollout against bots, one row each, in the order they were
    taken ((capacity, ...)): its observation, legal actions, action, log-probability, and its entry
    (``t * B + slot``) in the rollout's (T, B) arrays."""

    obs: Any
    mask: Any
    action: Any
    log_prob: Any
    entry: Any


def kept_rows(env: Any, size: int, n_steps: int) -> int:
    """How many of the learner's decisions a rollout keeps: every slot's at every step where it
    holds half the seats or more (self-play: ``n_steps * size``, every decision of every slot),
    else half of that, in :class:`Rows` (against four bayes_v1 the learner decides in about 85 to
    140 games of 2048 at a step, and keeping an observation of every slot cost 30% of an iteration:
    16 x 2048 x 850 floats, 96% zeros). Decisions past them are played, not learned from
    (``figures["unkept_decisions"]``)."""
    every = n_steps * size
    return every if env.chunk(size) >= size else every // 2


def seat_advantages(batch: Decided, last_values: Any, gamma: float, lam: float) -> tuple[Any, Any, Any]:
    """(T, B) GAE advantages, value targets and rewards of each entry along its own seat's
    decisions (0 for the entries that are not the learner's); ``last_values`` (B, 5): each seat's
    value at the rollout's end."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    size = last_values.shape[0]
    rows = jnp.arange(size)

    def backwards(carry: tuple, step: tuple) -> tuple[tuple, Any]:
        next_value, next_adv, gathered = carry  # (B, 5) each
        reward, done, seat, learner, value = step
        ended = done[:, None]
        next_value = jnp.where(ended, 0.0, next_value)
        next_adv = jnp.where(ended, 0.0, next_adv)
        gathered = jnp.where(ended, reward, gathered + reward)
        paid = gathered[rows, seat]
        delta = paid + gamma * next_value[rows, seat] - value
        adv = delta + gamma * lam * next_adv[rows, seat]
        mine = jax.nn.one_hot(seat, next_value.shape[1], dtype=bool) & learner[:, None]
        next_value = jnp.where(mine, value[:, None], next_value)
        next_adv = jnp.where(mine, adv[:, None], next_adv)
        gathered = jnp.where(mine, 0.0, gathered)
        return (next_value, next_adv, gathered), (jnp.where(learner, adv, 0.0), jnp.where(learner, paid, 0.0))

    start = (last_values, jnp.zeros_like(last_values), jnp.zeros_like(last_values))
    steps = (batch.reward, batch.done, batch.seat, batch.learner, batch.value)
    _, (advantage, paid) = lax.scan(backwards, start, steps, reverse=True)
    return advantage, advantage + batch.value, paid


def bootstrapped(batch: Decided) -> Any:
    """(B, 5) bool: the seats whose value at the rollout's end :func:`seat_advantages` reads, those
    with a learner entry in their slot's last game, which has not ended (its entries after the
    slot's last ``done``)."""
    import jax.numpy as jnp

    ended_later = jnp.cumsum(batch.done[::-1], axis=0)[::-1] > 0  # (T, B): the slot's game ends at t or after
    open_entries = batch.learner & ~ended_later
    return jnp.any(open_entries[:, :, None] & (batch.seat[:, :, None] == jnp.arange(5)), axis=0)


def make_decision_update(env: Any, config: TrainConfig) -> Callable[[Runner], tuple[Runner, dict[str, Any]]]:
    """One PPO iteration on :mod:`ckc_env.jax.table_env` as a pure function of the :class:`Runner`
    (its ``obs`` and ``mask`` unused: each step observes the acting seats)."""
    import jax
    import jax.numpy as jnp
    import optax
    from jax import lax

    from ckc_env.jax import game, policy
    from ckc_env.jax import table_env as table

    hyper = Hyper.of(config)
    tune = config.finetune
    optimizer = make_optimizer(hyper)
    size = config.vector.num_envs
    batch_size = hyper.batch_size
    part_size = batch_size // PARTS if batch_size % PARTS == 0 else batch_size
    members = env.members
    capacity = kept_rows(env, size, hyper.n_steps)
    every_slot = capacity >= hyper.n_steps * size  # a row per slot and step, kept in the scan's output
    chunk = env.chunk(size)
    held = capacity + (0 if every_slot else chunk)  # room for a pass that does not fit (it is not counted)
    padding = -held % batch_size  # the rows made whole minibatches

    def rollout_step(carry: tuple, t: Any) -> tuple[tuple, tuple]:
        params, ts, key, rows, taken = carry
        key, sample_key = jax.random.split(key)
        seat, learner = table.acting(ts)

        def decide(obs: Any, mask: Any, keys: Any) -> tuple:
            """The learner's decisions, sampled in the games where it acts alone (a key each)."""
            log_probs = masked_log_probs(policy.raw_logits(params, obs), mask)
            action = jax.vmap(jax.random.categorical)(keys, log_probs)
            log_prob = jnp.take_along_axis(log_probs, action[:, None], axis=1)[:, 0]
            return action, log_prob, policy.values(params, obs)

        mask = game.legal_action_mask(env.rules, ts.games)
        extras = (mask, jax.random.split(sample_key, size))
        if every_slot:  # a row per slot (zeros where the learner does not decide)
            network = lambda obs, *more: (obs, *decide(obs, *more))  # noqa: E731
            (obs, action, log_prob, value), _ = table.observed(env, ts, network, seat, learner, extras, mask)
            kept = (obs, mask, action, log_prob)
        else:  # its games gathered a chunk at a time, each decision a row of the rollout's Rows

            def one_pass(loop: tuple) -> tuple:
                waiting, action, value, rows, taken = loop
                games = jnp.nonzero(waiting, size=chunk, fill_value=size)[0]
                at = jnp.minimum(games, size - 1)
                obs = table.observations(env, jax.tree_util.tree_map(lambda x: x[at], ts.games), seat[at])
                chosen, log_prob, values = decide(obs, mask[at], extras[1][at])
                new = Rows(obs, mask[at], chosen, log_prob, t * size + at)
                rows = jax.tree_util.tree_map(lambda x, y: lax.dynamic_update_slice_in_dim(x, y, taken, 0), rows, new)
                count = (games < size).sum()
                taken = jnp.where(taken + count <= capacity, taken + count, taken)  # else not kept
                action = action.at[games].set(chosen, mode="drop")
                value = value.at[games].set(values, mode="drop")
                return waiting.at[games].set(False, mode="drop"), action, value, rows, taken

            start = (learner, jnp.zeros(size, jnp.int32), jnp.zeros(size, jnp.float32), rows, taken)
            _, action, value, rows, taken = lax.while_loop(lambda loop: loop[0].any(), one_pass, start)
            kept = (None, None, None, None)
        ts, out = table.step(env, ts, action)
        kept = Decided(*kept, value, out.learner, out.seat, out.reward, out.done)
        games = (out.done, out.win_share, out.points, out.margin, out.member)
        return (params, ts, key, rows, taken), (kept, games)

    def last_values(params: Any, ts: Any, batch: Decided) -> Any:
        """(B, 5) the value of each learner's seat's own observation at the rollout's end, observed
        where the seat has a learner entry in the rollout's last game of the slot (its bootstrap);
        0 elsewhere, where nothing reads it (against four bayes_v1 most slots hold no learner
        entry since their last deal: their observations are not computed)."""
        held = (ts.role == table.LEARNER) & bootstrapped(batch)

        def of_seat(seat: Any) -> Any:
            values = lambda obs: policy.values(params, obs)  # noqa: E731
            return table.observed(env, ts, values, jnp.full(size, seat, jnp.int32), where=held[:, seat])[0]

        return jnp.moveaxis(lax.map(of_seat, jnp.arange(5)), 0, 1)

    def epochs(runner: Runner, data: tuple, learner: Any, key: Any) -> tuple[Runner, dict[str, Any]]:
        warming = runner.timesteps <= tune.critic_warmup
        grad = jax.grad(partial(ppo_loss, hyper), has_aux=True)
        count = learner.sum()

        batches = (count + batch_size - 1) // batch_size  # the minibatches that hold learner entries

        def in_parts(params: Any, rows: tuple, weight: Any, filled: Any) -> tuple[Any, dict[str, Any]]:
            """The minibatch's gradient and figures: taken whole where its learner entries fill it,
            else summed over its parts that hold them (``filled`` of them lead the minibatch): the
            whole one's, from those rows alone (a full minibatch in parts ran 10-20% slower)."""
            norm = normalisers(rows[5], weight)

            def one_part(loop: tuple) -> tuple:
                index, grads, figures = loop
                part = jax.tree_util.tree_map(lambda x: lax.dynamic_slice_in_dim(x, index * part_size, part_size), rows)
                own = lax.dynamic_slice_in_dim(weight, index * part_size, part_size)
                more, shares = grad(params, part, own, norm)
                return index + 1, optax.tree_utils.tree_add(grads, more), optax.tree_utils.tree_add(figures, shares)

            def partly() -> tuple[Any, dict[str, Any]]:
                zeros = {name: jnp.float32(0) for name in FIGURES}
                start = (jnp.int32(0), optax.tree_utils.tree_zeros_like(params), zeros)
                parts = (filled + part_size - 1) // part_size
                _, grads, figures = lax.while_loop(lambda loop: loop[0] < parts, one_part, start)
                return grads, figures

            return lax.cond(filled >= batch_size, lambda: grad(params, rows, weight, norm), partly)

        def minibatch(loop: tuple) -> tuple:
            step, params, opt_state, going, sums, order = loop
            first = step * batch_size
            indices = lax.dynamic_slice(order, (first,), (batch_size,))
            weight = ((first + jnp.arange(batch_size)) < count).astype(jnp.float32)
            rows = jax.tree_util.tree_map(lambda x: x[indices], data)
            grads, figures = in_parts(params, rows, weight, jnp.minimum(count - first, batch_size))
            if hyper.target_kl is not None:  # sb3: stop before the step once the KL passes 1.5 x target_kl
                going = going & (figures["approx_kl"] <= 1.5 * hyper.target_kl)
            updates, new_state = optimizer.update(grads, opt_state, params)
            new_params = optax.apply_updates(params, frozen_policy(updates, warming))
            params = jax.tree_util.tree_map(lambda new, old: jnp.where(going, new, old), new_params, params)
            opt_state = jax.tree_util.tree_map(lambda new, old: jnp.where(going, new, old), new_state, opt_state)
            sums = jax.tree_util.tree_map(jnp.add, sums, figures)
            return step + 1, params, opt_state, going, sums, order

        def epoch(carry: tuple, epoch_key: Any) -> tuple[tuple, None]:
            # the learner's entries first, shuffled; the others after them; only the minibatches that
            # hold learner entries are run (a while loop: no work for the rest)
            params, opt_state, going, sums = carry
            order = jnp.argsort(jnp.where(learner, jax.random.uniform(epoch_key, learner.shape), 2.0))
            order = jnp.concatenate([order, jnp.zeros(padding, order.dtype)])  # whole minibatches (weight 0)
            start = (jnp.int32(0), params, opt_state, going, sums, order)
            _, params, opt_state, going, sums, _ = lax.while_loop(lambda loop: loop[0] < batches, minibatch, start)
            return (params, opt_state, going, sums), None

        keys = jax.random.split(key, hyper.n_epochs)
        zeros = {name: jnp.float32(0) for name in FIGURES}
        start = (runner.params, runner.opt_state, jnp.bool_(True), zeros)
        (params, opt_state, _, sums), _ = lax.scan(epoch, start, keys)
        done = jnp.maximum(batches * hyper.n_epochs, 1).astype(jnp.float32)
        figures = {name: value / done for name, value in sums.items()}
        figures["critic_warmup"] = warming.astype(jnp.float32)
        return runner._replace(params=params, opt_state=opt_state), figures

    def update(runner: Runner) -> tuple[Runner, dict[str, Any]]:
        key, rollout_key, epoch_key = jax.random.split(runner.key, 3)
        rows = None
        if not every_slot:
            shapes = ((env.layout.size,), (40,), (), (), ())
            dtypes = (jnp.float32, jnp.bool_, jnp.int32, jnp.float32, jnp.int32)
            rows = Rows(*(jnp.zeros((held, *shape), dtype) for shape, dtype in zip(shapes, dtypes, strict=True)))
        carry = (runner.params, runner.env_state, rollout_key, rows, jnp.int32(0))
        (params, ts, _, rows, taken), (batch, games) = lax.scan(rollout_step, carry, jnp.arange(hyper.n_steps))
        advantage, target, paid = seat_advantages(batch, last_values(params, ts, batch), hyper.gamma, hyper.gae_lambda)
        flat = lambda x: x.reshape((-1, *x.shape[2:]))  # noqa: E731
        if every_slot:
            entries = (batch.obs, batch.mask, batch.action, batch.log_prob, batch.value, advantage, target)
            data = tuple(flat(x) for x in entries)
            learner = flat(batch.learner)
        else:
            of_rows = lambda x: x.reshape(-1)[rows.entry]  # noqa: E731
            data = (
                rows.obs,
                rows.mask,
                rows.action,
                rows.log_prob,
                *(of_rows(x) for x in (batch.value, advantage, target)),
            )
            learner = jnp.arange(held) < taken
        steps = batch.learner.sum().astype(jnp.float32)
        runner = runner._replace(env_state=ts, key=key, timesteps=runner.timesteps + steps)
        runner, figures = epochs(runner, data, learner, epoch_key)
        weight = learner.astype(jnp.float32)
        count = jnp.maximum(weight.sum(), 1.0)
        mean_target = jnp.sum(data[6] * weight) / count
        variance = jnp.sum((data[6] - mean_target) ** 2 * weight) / count
        error = data[6] - data[4]
        error_var = jnp.sum((error - jnp.sum(error * weight) / count) ** 2 * weight) / count
        figures["explained_variance"] = jnp.where(variance > 0, 1 - error_var / variance, jnp.nan)
        done, share, points, margin, member = games
        ended = done.astype(jnp.float32)
        figures["learner_steps"] = steps
        figures["unkept_decisions"] = steps - weight.sum()
        figures["games"] = ended.sum()
        figures["win_share_sum"] = (share * ended).sum()
        figures["points_sum"] = (points * ended).sum()
        figures["margin_sum"] = (margin * ended).sum()
        figures["return_sum"] = paid.sum()  # the rewards of the learner's transitions
        figures["member_games"] = jax.ops.segment_sum(ended.ravel(), member.ravel(), members)
        figures["member_wins"] = jax.ops.segment_sum((share * ended).ravel(), member.ravel(), members)
        return runner, figures

    return update


PARTS = 8
"""A minibatch's gradient is taken in this many parts of its rows, only those that hold learner
entries: the learner's entries rarely fill the last minibatch (against four bayes_v1 about 1,230
entries a rollout of 16 x 2048 decisions: one minibatch of 2048, 40% of it padding), and the
padding's rows cost a gradient each. The parts' gradients add up to the whole minibatch's
(:class:`~.update.Normalisers`)."""
FIGURES = ("policy_gradient_loss", "value_loss", "entropy_loss", "approx_kl", "clip_fraction")
"""The loss's figures, averaged over the minibatches an iteration learned from."""
