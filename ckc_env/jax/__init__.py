"""The JAX engine: games of Checkpoint Charlie as pure functions of fixed-shape arrays, for
``jax.jit``, ``jax.vmap`` and ``jax.lax.scan`` on a CPU, a GPU or a TPU (the ``jax`` extra).

The third engine, beside the scalar ``ckc_env.engine`` and the NumPy ``ckc_env.batch``, with the
same rules, the same fields and the same chance model: **a seed deals the same game on all three**
(SplitMix64 in 32-bit words, ``jax.chance``), and the same actions give the same states, masks,
rewards and round records, exactly (``tests/test_jax_engine.py``, under every rule option). It is
written for one game, as Pgx's games are, and batched with ``jax.vmap``; nothing leaves the device
inside a step, and no Python branch depends on a value.

    import jax
    from ckc_env.config import GameConfig
    from ckc_env.jax import chance, game, observation
    from ckc_env.jax.state import rules_of

    rules = rules_of(GameConfig(num_players=5))
    state = game.init(rules, chance.keys_of_seeds(range(4096)))   # the games seeded 0..4095
    mask = game.legal_action_mask(rules, state)                    # (4096, 40) bool
    obs = observation.observe_batch(rules, state)                  # (4096, 736) of the acting seats
    state = game.step(rules, state, actions, autoreset=True)       # (4096,) int32 actions
    points = state.rewards                                         # (4096, 5) points won in the step

| module | holds | NumPy twin |
|---|---|---|
| ``state`` | ``State`` (a pytree: ``batch.state``'s fields, per game), ``Rules`` (static), ``from_batch`` / ``to_batch`` | ``batch.state`` |
| ``chance`` | SplitMix64 as (hi, lo) uint32 pairs: words, ``below``, ``ordered``, keys of seeds | ``batch.chance`` |
| ``round_setup``, ``suspicion``, ``scoring`` | RULES.md 2-3, 4, 5-8 | the same names |
| ``game`` | ``init``, ``step`` (``autoreset``), ``legal_action_mask``; ``init_one``, ``step_one``, ``legal_mask_one`` for one game | ``batch.game`` |
| ``observation`` | the 736 / 850 / 964 observations, the state and critic vectors | ``batch.observation`` |
| ``beliefs``, ``chip_values``, ``bayes_rule``, ``players_posterior`` | the exact posterior, the players' posterior | the same names |
| ``players``, ``registry`` | random, passive, eager, bayes_v1, cheater (and bayes_v2 from ``players_posterior``): their decisions and random streams; ``registry.make_player(name)`` | ``batch.agents`` |
| ``policy`` | a safe agent file's network in JAX | ``players.agent_file`` |
| ``tournament`` | ``ckc-evaluate --engine jax``: a tournament's games played on the device | ``evaluation.tournament.play_batched`` |
| ``pgx_env`` | ``CheckpointCharlie``: Pgx's ``Env`` contract (``init(key)``, ``step``, ``observe``) | |
| ``compiled`` | the entry points' compiled programs: a few kept per entry point, ``free()`` (each program holds memory mappings, of which a process has a limited number) | |
| ``vector_env`` | the learner's view: B single-agent games, the opponents played inside ``step`` (``training/trainers/jax/`` trains on it) | ``envs.vector`` |

## One game, a batch, and what a step costs

``init_one`` / ``step_one`` are one game's functions; ``jax.vmap`` of them is a batch (``step_each``),
every transition computed in every game and selected, as ``jax.vmap`` turns a ``lax.cond`` into a
select. The batched :func:`game.step` plays the same games cheaper: every game's suspicion loop
(draws, windows, forced accusations) runs vmapped, and the few games that reach the end of a round
in a step (its scoring, Cafe Adler decisions, the next deal) are gathered, played and written back
(``game.on_games``) at fixed shapes, as the NumPy engine works on index arrays. Both give the same
arrays (tested).

## Randomness

A game's chance outcomes come from its key ((2,) uint32, ``state.key``) and a draw counter, as in
``engine.chance``: ``chance.keys_of_seeds(seeds)`` gives the keys of games seeded ``seeds`` (the
scalar engine's ``engine.init(config, seed=s)`` and ``batch.init(config, seeds=[s])`` are the same
games), ``autoreset`` gives a slot's next game the key ``chance.next_key(key)`` as the NumPy
engine does. Players draw from their own streams, keyed per game and seat
(``players.Streams``), so the random player, clue faces and Cafe Adler partners also decide alike
on every engine. Pgx's ``init(key)`` takes a ``jax.random`` key: ``pgx_env`` turns it into a seed.

## Precision

Everything is 32-bit (an environment must not switch JAX's process-wide 64-bit mode): integer
state, exact; rewards float32, exact (small integers); beliefs and the observation's posterior
pieces float32 (within 1 ulp of the NumPy engine's float64 values rounded); the bayes players'
threshold comparisons in float32, which differ from the float64 ones only at exact ties of the
mathematics that rounding breaks either way (counted in ``tests/test_jax_players.py``).
"""

try:
    import jax as _jax  # noqa: F401
except ImportError as error:  # pragma: no cover - the core installs without it
    raise ImportError(
        "ckc_env.jax needs JAX: pip install 'ckc-env[jax]' (JAX for the CPU; for an NVIDIA GPU, "
        "pip install -U 'jax[cuda12]' after it)"
    ) from error
