"""The batched engine: B games of Checkpoint Charlie in lockstep, as NumPy arrays.

The rules of ``ckc_env.engine`` for a whole batch at once, in the spirit of Pgx: a state of arrays
with a leading batch axis and pure functions over it, NumPy only (no torch, no JAX). It implements
everything the scalar engine does (3, 4 and 5 players, also mixed in one batch; both variants;
every rule option of ``GameConfig``) and is proved identical to it, bit for bit, by
``tests/test_batch_engine.py`` (observations, masks, rewards, round summaries over 100,000
decisions), ``tests/test_batch_agents.py`` (beliefs and baselines) and
``tests/test_batch_players_posterior.py`` (the players' posterior, bayes_v2 and the observation that
reads it) and ``tests/test_batch_second_order.py`` (the second-order reading, bayes_v3 and its layout).

    from ckc_env import batch
    from ckc_env.batch.agents import decide, make_batch_agent
    from ckc_env.config import GameConfig

    state = batch.init(GameConfig(num_players=5), batch_size=4096, seed=0)
    lineup = [make_batch_agent("bayes_v1", seed=s) for s in range(5)]
    while True:
        obs = batch.observe(state)                          # (4096, 736) for each game's acting seat
        mask = batch.legal_action_mask(state)               # (4096, 40) int8
        batch.step(state, decide(state, lineup), autoreset=True)
        points = state.rewards                              # (4096, 5) points won in that step

## API

| function | does | scalar counterpart |
|---|---|---|
| ``init(config, batch_size, seed)`` | deals B games (``seeds=`` one seed per game; ``num_players=`` one count per game) and runs each to its first decision | ``engine.init`` |
| ``step(state, actions, autoreset=False, games=None)`` | applies ``actions[b]`` to game b's pending decision (games that are over ignore theirs; with ``games``, only those games are stepped and the others wait), then runs each stepped game to its next decision; an illegal action raises ``ValueError`` naming the games and changes nothing | ``engine.step`` |
| ``apply(state, actions, autoreset=False, games=None)`` | ``step`` without the legality check | ``engine.apply`` |
| ``legal_action_mask(state)`` | (B, 40) int8 legal actions of each pending decision (zeros once over) | ``engine.legal_mask`` |
| ``observe(state, seats=None, layout=OBSERVATION, out=None, players=None, second_order=None, exact=None)`` | (B, 736) float32 observation of ``seats[b]`` (default the acting seat); ``OBSERVATION_WITH_BELIEFS`` gives 850, ``OBSERVATION_WITH_PLAYER_BELIEFS`` 964 (``players``: that posterior from a reader kept across steps, else read afresh), ``OBSERVATION_WITH_SECOND_ORDER`` 1078 (``second_order`` likewise); ``out`` is an array to reuse | ``observation.encode_observation`` |
| ``encode_state(state, out=None)`` | (B, 895) float32 full state for centralised critics | ``observation.encode_state`` |
| ``state.rewards`` | (B, 5) float64 points won in the last step by seat (reward schemes: ``ckc_env.table.rewards``) | ``engine.pop_rewards`` |
| ``reset(state, games)`` | starts the next game in those slots | ``engine.init`` |
| ``summary.round_summaries(state, games)`` | the scalar summary dicts of the rounds that ended in the last step | ``GameState.summaries`` |
| ``beliefs.seat_beliefs(state, games, seats)`` | exact posterior of (game, seat) pairs | ``reading.beliefs.beliefs`` |
| ``players_posterior.PlayersReader(params, follow)`` | what the other players' decisions reveal of their clues, per (game, seat), kept across steps; ``.beliefs(state, games, seats)`` the weighted posterior | ``reading.players_posterior.PlayersReader``, ``reading.beliefs.weighted_beliefs`` |
| ``second_order.SecondOrderReader(params, follow, inner_follow)`` | the same, each other player read as bayes_v2 (who reads the others too) | ``reading.second_order.SecondOrderReader`` |
| ``agents``: ``make_batch_agent(name)``, ``decide(state, lineup)`` | the scripted baselines (``bayes_v2`` and ``bayes_v3`` included) for a whole batch | ``agents.make_agent`` |
| ``replay.Lockstep`` | scalar games and a batch of the same seeds, stepped together | |
| ``positions.from_games(games)``, ``positions.to_game(state, b)`` | scalar positions (any, mid-round too) as one batch that plays on as they do; a batch's game as a scalar state | ``GameState`` |
| ``search.BatchSearchAgent`` | ``search`` (a policy with its open decisions searched) for a batch, every searched game's worlds and candidates continued in one batch | ``agents.search`` |

``step`` and ``apply`` update the state in place and return it, as the scalar engine does (copying
every array at every step would cost more than the step); ``state.copy()`` keeps a snapshot. Seats
are absolute (0..n-1); ``state.pending_seat`` says who acts in each game, and the action table is
the scalar one (``ckc_env.engine.actions``).

## Automatic reset

``step(..., autoreset=True)`` replaces every game that ends in the step by the next game of its
slot within the same call (Gymnasium's ``AutoresetMode.SAME_STEP``): the returned state shows the
new game's first decision, while ``state.terminated``, ``state.rewards``, ``state.winners`` and
``state.record`` (the final round's summary, totals, gold and winners) still describe the game that
ended. The final observation of a finished game is not kept: a caller that wants it steps with
``autoreset=False``, observes, then calls ``reset(state, state.terminated)`` (Gymnasium's
``AutoresetMode.NEXT_STEP``). Without a reset, finished games stay over and ignore their actions.

## Randomness: one chance model for both engines

Chance outcomes (the supply's order, the first player, each round's tiles, faces and deck, the
order of every accusation window in which someone can act, where the Stasi chip goes back, the chip
taken in a Cafe Adler swap) come from ``state.chance`` (``batch.chance``), which follows the chance
model of ``ckc_env.engine.chance``: a counter-based stream per game (SplitMix64 of the game's key
and a draw counter, ``state.key`` and ``state.counter``), asked at the same points of the rules as
the scalar engine asks and turned into outcomes the same way. A game's course depends on its key
and its actions only, not on the batch around it, and **a game seeded s is the scalar engine's game
seeded s**. ``init(seed=s)`` seeds game b with ``derive_seed(s, "batch", b)``; ``init(seeds=...)``
takes each game's seed; an automatic reset gives the slot's next game a key derived from the last
one (``engine.init(config, key=...)`` plays the same game on the scalar engine).

``replay.Lockstep`` plays scalar games and a batch of the same seeds side by side (the differential
tests do). Positions fixed by the scalar engine's reset options reach the batch as fixed outcomes
(``chance.FixedDeals``): the words are drawn all the same, only the fixed parts are replaced.

## State arrays

``BatchState`` (``batch.state``) mirrors ``engine.state.GameState`` field by field; B is the batch
size, seats beyond a game's player count hold -1 or 0. The rules are in modules named as the scalar
engine's: ``round_setup`` (RULES.md 3), ``suspicion`` (4), ``scoring`` (5-8) and ``game`` (the
state machine); ``chance`` (where chance outcomes come from), ``observation``, ``agents``,
``summary``, ``replay`` and ``positions`` complete it, with the readers named as ``ckc_env.reading``'s:
``beliefs``, ``chip_values``, ``bayes_rule``, ``players_posterior`` and ``second_order``.

{STATE_TABLE}

"Cleared" says when a field is reset to its empty value: when a game is dealt or a round starts
(``state.clear``); the empty state, these resets and this table are all read from the fields'
declarations in ``batch/state.py``.
"""

from .game import apply, init, legal_action_mask, reset, step
from .observation import encode_state, observe
from .state import BatchRules, BatchState, fields_table

__doc__ = __doc__.replace("{STATE_TABLE}", fields_table())

__all__ = [
    "BatchRules",
    "BatchState",
    "apply",
    "encode_state",
    "init",
    "legal_action_mask",
    "observe",
    "reset",
    "step",
]
