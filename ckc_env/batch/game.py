"""The batched state machine: ``engine/game.py`` for B games at once.

``init`` deals B games and ``step`` applies one action per game to its pending decision; both then
play by themselves, in every game, everything that needs no decision (draws, placements,
single-option accusations, hand-outs, the next round's deal) until each game has a decision with at
least two legal actions or is over, exactly as the scalar ``engine.game._advance`` does. The work
is done phase by phase over the games in that phase (numpy on index arrays); a game that needs
several transitions is carried through repeated passes, so no Python loop runs over games.

The rules themselves live in the modules named as the scalar engine's: ``round_setup`` (RULES.md
3), ``suspicion`` (4), ``scoring`` (5-8), each function taking the state and an index array of
games instead of one game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..config import GameConfig
from ..engine.actions import (
    ACCUSE,
    CAFE_ADLER,
    CLUE_FACE,
    CLUE_FACE_A,
    DECISION_KINDS,
    FORCED_ACCUSATION,
    KEEP,
    N_ACTIONS,
    PASS,
    SWAP,
    WINDOW,
    action_to_string,
)
from ..engine.cards import N_CATS
from ..engine.state import CHOOSING_FACES, DRAWING, FORCED, GAME_OVER, IN_WINDOW, SCORING, SWAPPING
from .chance import RandomChance, game_keys, next_keys, slot_seeds
from .round_setup import choosing_faces, start_round
from .scoring import adler_swap, game_end_reasons, return_stasi_chip, scoring, settle_winners, swap_targets, swapping
from .state import SEAT_RANGE, BatchState, clear, empty_state, rules_for
from .suspicion import accuse, drawing, forced, in_window, targets


def init(
    config: GameConfig,
    batch_size: int | None = None,
    seed: int | None = None,
    *,
    seeds: Sequence[int] | None = None,
    num_players: Sequence[int] | None = None,
    chance: object | None = None,
    options: Mapping[str, Any] | None = None,
) -> BatchState:
    """B new games, each run to its first decision.

    ``seed`` seeds game b with ``derive_seed(seed, "batch", b)``; ``seeds`` gives each game's seed
    instead (game b with seed s is the same game in any batch). ``num_players`` (one count per
    game) mixes player counts in one batch; every other option comes from ``config``. ``chance``
    is where chance outcomes come from (default: :class:`~ckc_env.batch.chance.RandomChance`).
    Reset ``options`` (the scalar engine's) are refused: ``replay.Lockstep`` plays them.
    """
    if not isinstance(config, GameConfig):
        raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
    if options:
        raise ValueError(
            f"the batched engine takes no reset options ({sorted(options)}): to play a deal fixed by hand, "
            "give the options to batch.replay.Lockstep, which replays the scalar game's deal into the batch"
        )
    if seeds is not None:
        if batch_size is not None and batch_size != len(seeds):
            raise ValueError(f"batch_size={batch_size} disagrees with the {len(seeds)} seeds given")
        if seed is not None:
            raise ValueError("give seed (one per batch) or seeds (one per game), not both")
        seeds = [int(s) for s in seeds]
        if any(s < 0 for s in seeds):
            raise ValueError(f"seeds must be non-negative integers, got {seeds}")
    else:
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"invalid batch_size={batch_size!r}: accepted values are integers >= 1")
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (1 << 63))
        seeds = slot_seeds(seed, int(batch_size))
    size = len(seeds)
    if size < 1:
        raise ValueError("a batch needs at least one game")
    if num_players is None:
        configs = [config] * size
    else:
        counts = list(num_players)
        if len(counts) != size:
            raise ValueError(f"num_players has {len(counts)} entries for a batch of {size} games")
        by_count = {k: dataclasses.replace(config, num_players=k) for k in set(counts)}  # validates each count
        configs = [by_count[k] for k in counts]
    rules = rules_for(configs)
    first = np.array([-1 if c.first_player == "random" else c.first_player for c in configs])
    state = empty_state(rules, np.array([c.num_players for c in configs]), chance or RandomChance(), first)
    state.key[:] = game_keys(seeds)
    start_games(state, np.arange(size))
    return state


def reset(state: BatchState, games: np.ndarray) -> BatchState:
    """Start the next game in each slot of ``games`` (a bool mask or indices): its key follows
    from the finished game's (``chance.next_keys``), so a slot's sequence of games is fixed by its
    first seed."""
    games = _indices(state, games)
    state.key[games] = next_keys(state.key[games])
    start_games(state, games)
    return state


def start_games(state: BatchState, games: np.ndarray) -> None:
    """A new game in each of ``games`` (their keys set), run to its first decision."""
    deal_games(state, games)
    _advance(state, games)


def deal_games(state: BatchState, games: np.ndarray) -> None:
    """A new game in each of ``games`` (their keys set): chips shuffled, first player, round 1."""
    chance = state.chance
    clear(state, games, "new_game")
    state.supply[games] = chance.supply(state, games)
    state.supply_len[games] = (state.supply[games] >= 0).sum(2)
    first = state.first_player_option[games].astype(np.int64)
    drawn = first < 0
    if drawn.any():
        first[drawn] = chance.first_players(state, games[drawn])
    state.first_player[games] = first
    state.next_first_player[games] = first
    start_round(state, games)


def _advance(state: BatchState, games: np.ndarray, autoreset: bool = False) -> None:
    """Play everything that needs no decision in ``games``, up to each one's next decision or end.

    Each pass hands every game to the handler of its phase, which moves it on by one transition
    (a closed window goes on to the draws at once) or asks it a decision; passes repeat until every
    game is settled. With ``autoreset`` a game that ends is dealt its slot's next game in the same
    loop (``reset``), so new games share the passes of the others.
    """
    state.pending_kind[games] = -1
    todo = games
    while len(todo):
        phase = state.phase[todo]
        present = np.bincount(phase, minlength=GAME_OVER + 1)
        for index, handler in _HANDLERS:
            if present[index]:
                handler(state, todo[phase == index])
        waiting = state.pending_kind[todo] < 0
        over = state.phase[todo] == GAME_OVER
        if autoreset and over.any():
            ended = todo[over]
            state.key[ended] = next_keys(state.key[ended])
            deal_games(state, ended)
        else:
            waiting &= ~over
        todo = todo[waiting]


def finish_round(state: BatchState, games: np.ndarray) -> None:
    """6 and 7: end the game, or return the Stasi chip and deal the next round."""
    rules = state.rules
    reasons = game_end_reasons(state, games)
    if rules.stasi_id >= 0:
        taker = state.stasi_taker[games].astype(np.int64)
        back = (taker >= 0) & (reasons == 0)  # if the game ends, its taker keeps it (-2)
        if back.any():
            return_stasi_chip(state, games[back], taker[back])
    over = reasons != 0
    ended = games[over]
    state.end_reasons[ended] = reasons[over]
    if len(ended):
        state.phase[ended] = GAME_OVER
        state.game_over[ended] = True
        state.terminated[ended] = True
        settle_winners(state, ended)
    state.round_ended[games] = True
    state.record.keep(state, games)
    going_on = games[~over]
    if len(going_on):
        state.round_index[going_on] += 1
        start_round(state, going_on)


def _swap_or_finish(state: BatchState, games: np.ndarray) -> None:
    """The Cafe Adler decisions of the scoring phase, then the round's end."""
    through = swapping(state, games)
    if len(through):
        finish_round(state, through)


_HANDLERS = (  # in this order within a pass
    (IN_WINDOW, in_window),
    (DRAWING, drawing),
    (FORCED, forced),
    (SCORING, scoring),
    (SWAPPING, _swap_or_finish),
    (CHOOSING_FACES, choosing_faces),
)


def legal_action_mask(state: BatchState) -> np.ndarray:
    """(B, 40) int8: 1 at the legal actions of each game's pending decision (zeros once over)."""
    size = state.batch_size
    kind = state.pending_kind
    mask = np.zeros((size, N_ACTIONS), dtype=np.int8)
    accusing = (kind == WINDOW) | (kind == FORCED_ACCUSATION)
    t = np.where(accusing, targets(state), 0).astype("<u4")
    mask[:, ACCUSE : ACCUSE + N_CATS] = np.unpackbits(t.view(np.uint8).reshape(size, 4), axis=1, bitorder="little")
    mask[:, PASS] = kind == WINDOW
    choosing = kind == CLUE_FACE
    mask[:, CLUE_FACE_A] = choosing
    mask[:, CLUE_FACE_A + 1] = choosing
    adler = np.flatnonzero(kind == CAFE_ADLER)
    if len(adler):
        seats = state.pending_seat[adler].astype(np.int64)
        n = state.n[adler].astype(np.int64)
        possible = swap_targets(state, adler, seats, state.pending_chip[adler].astype(np.int64))
        offset = (SEAT_RANGE - seats[:, None]) % n[:, None]  # seat k places clockwise: SWAP + k - 1
        rows, others = np.nonzero(possible)
        mask[adler, KEEP] = 1
        mask[adler[rows], SWAP + offset[rows, others] - 1] = 1
    return mask


def step(
    state: BatchState, actions: np.ndarray, autoreset: bool = False, games: np.ndarray | None = None
) -> BatchState:
    """Apply each game's action to its pending decision and advance every game to its next one.

    Games that are over ignore their action. ``games`` (a bool mask or indices) steps only those
    games, leaving the others as they are (their actions are ignored): a caller can play some
    seats' decisions while others wait. An illegal action raises ``ValueError`` naming the games,
    their actions and the legal ones, and changes nothing. With ``autoreset``, games that end in
    this step are replaced by the next game of their slot (see ``reset``) before returning:
    ``terminated``, ``rewards`` and ``record`` still describe the finished game.
    """
    actions = np.asarray(actions)
    if actions.shape != (state.batch_size,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"actions must be an integer array of shape ({state.batch_size},), got {actions.dtype} {actions.shape}"
        )
    live = _live(state, games)
    chosen = actions[live]
    mask = legal_action_mask(state)
    inside = (chosen >= 0) & (chosen < N_ACTIONS)
    legal = inside & (mask[live, np.where(inside, chosen, 0)] == 1)
    if not legal.all():
        bad = live[~legal][:5]
        details = "; ".join(
            f"game {g}: {int(actions[g])!r} for seat {int(state.pending_seat[g])} "
            f"({DECISION_KINDS[state.pending_kind[g]]}), legal: "
            + ", ".join(f"{a} ({action_to_string(a)})" for a in np.flatnonzero(mask[g]))
            for g in bad
        )
        raise ValueError(f"illegal action(s) in {int((~legal).sum())} game(s): {details}")
    return apply(state, actions, autoreset, games)


def _live(state: BatchState, games: np.ndarray | None) -> np.ndarray:
    """The games to step: those with a pending decision, among ``games`` if given."""
    waiting = state.pending_kind >= 0
    if games is None:
        return np.flatnonzero(waiting)
    chosen = _indices(state, games)
    return chosen[waiting[chosen]]


def apply(
    state: BatchState, actions: np.ndarray, autoreset: bool = False, games: np.ndarray | None = None
) -> BatchState:
    """``step`` without the legality check, for callers that have made it."""
    state.rewards[:] = 0.0
    state.terminated[:] = False
    state.round_ended[:] = False
    live = _live(state, games)
    action = np.asarray(actions)[live].astype(np.int64)
    kind = state.pending_kind[live]
    seat = state.pending_seat[live].astype(np.int64)

    window = kind == WINDOW
    if window.any():
        g, s, a = live[window], seat[window], action[window]
        state.queue_pos[g] += 1
        passing = a == PASS
        state.window_passed[g[passing]] |= (1 << s[passing]).astype(np.uint8)
        accusing = ~passing
        ga = g[accusing]
        accuse(state, ga, s[accusing], a[accusing] - ACCUSE)
        if state.rules.config.reopen_windows:
            state.window_owed[ga] |= state.window_passed[ga]
            state.window_passed[ga] = 0
    forced = kind == FORCED_ACCUSATION
    if forced.any():
        g = live[forced]
        accuse(state, g, seat[forced], action[forced] - ACCUSE)
        state.queue_pos[g] += 1
    choosing = kind == CLUE_FACE
    if choosing.any():
        g, s = live[choosing], seat[choosing]
        state.clues[g, s] = 2 * state.tiles[g, s] + (action[choosing] - CLUE_FACE_A)
        state.queue_pos[g] += 1
    swapping = (kind == CAFE_ADLER) & (action != KEEP)
    if swapping.any():
        g, s = live[swapping], seat[swapping]
        adler_swap(state, g, s, (s + action[swapping] - SWAP + 1) % state.n[g])
    _advance(state, live, autoreset)
    return state


def _indices(state: BatchState, games: np.ndarray) -> np.ndarray:
    games = np.asarray(games)
    if games.dtype == bool:
        if games.shape != (state.batch_size,):
            raise ValueError(f"a game mask must have shape ({state.batch_size},), got {games.shape}")
        return np.flatnonzero(games)
    games = games.astype(np.int64).reshape(-1)
    if len(games) and (games.min() < 0 or games.max() >= state.batch_size):
        raise ValueError(f"game indices must lie in 0..{state.batch_size - 1}, got {games}")
    return games
