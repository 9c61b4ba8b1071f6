"""The game as a state machine: set-up, suspicion, scoring, swaps and game end, round after round.

Pure functions of a :class:`~ckc_env.engine.state.GameState`: ``init`` deals a new game, ``step``
applies the pending decision's action; both then play by themselves everything that needs no
decision (draws, placements, single-option accusations, hand-outs) until a player has a decision
with at least two legal actions, or the game is over. The rules live in the modules named after
them: ``round_setup`` (RULES.md 3), ``suspicion`` (4), ``scoring`` (5-8), ``summary`` (the record).

    state = init(GameConfig(num_players=4), seed=7)
    while not state.game_over:
        step(state, legal_actions(state)[0])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..config import COLOURS, GameConfig
from . import chance, round_setup, scoring, suspicion
from .actions import (
    ACCUSE,
    CAFE_ADLER,
    CLUE_FACE,
    CLUE_FACE_A,
    CLUE_FACE_B,
    DECISION_KINDS,
    FORCED_ACCUSATION,
    KEEP,
    N_ACTIONS,
    PASS,
    SWAP,
    WINDOW,
    action_to_string,
)
from .cards import INVESTIGATOR, cats_in
from .chips import build_pool, ordered_supply
from .options import parse_reset_options
from .state import CHOOSING_FACES, DRAWING, FORCED, GAME_OVER, IN_WINDOW, SCORING, SWAPPING, GameState
from .summary import round_summary


# ---------------------------------------------------------------------- game set-up (RULES.md 2)
def init(
    config: GameConfig,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    key: int | None = None,
    chance_source: chance.ChanceSource | None = None,
) -> GameState:
    """A new game dealt from ``seed`` (reset ``options`` fix parts of the deal), run to its first
    decision. ``key`` gives the game's random stream directly (``chance.next_key``: the game that
    follows in a batched slot). ``chance_source`` answers the chance questions instead of the stream
    (``chance.ChanceSource``; kept as ``state.chance``)."""
    parsed = parse_reset_options(options, config)  # fails before anything is dealt
    if key is not None and seed is not None:
        raise ValueError("give seed or key, not both")
    stream = chance.Stream(key) if key is not None else chance.Stream.seeded(seed)
    n = config.num_players
    pool = build_pool(config)
    state = GameState(config=config, n=n, pool=pool, stream=stream, options=parsed, chance=chance_source)
    drawn = state.chance.supply_order([pool.ids_of(colour) for colour in range(len(COLOURS))])
    state.supply = ordered_supply(pool, drawn, parsed.chip_order)
    state.holdings = [[] for _ in range(n)]
    state.chip_table = [[0] * 6 for _ in range(n)]
    state.rewards = [0.0] * n
    first = state.chance.first_player(n) if config.first_player == "random" else int(config.first_player)
    state.first_player = parsed.first_player if parsed.first_player is not None else first
    state.next_first_player = state.first_player
    round_setup.start_round(state)
    _advance(state)
    return state


# ---------------------------------------------------------------------- running until a decision
def _advance(state: GameState) -> None:
    """Play everything that needs no decision, up to the next decision or the game's end."""
    state.pending_kind = -1
    while True:
        phase = state.phase
        if phase == IN_WINDOW:
            if state.round_over:
                state.phase = SCORING
                continue
            if state.row_cats & ~state.accused_cats:  # eligibility: has not accused, and a target exists
                queue, accused_by = state.queue, state.accused_by
                while state.queue_pos < len(queue):
                    seat = queue[state.queue_pos]
                    if accused_by[seat] < 0:
                        state.pending_kind, state.pending_seat = WINDOW, seat  # _ask, on the hot path
                        return
                    state.queue_pos += 1
                if suspicion.reopen_window(state):
                    continue
            if state.last_card != INVESTIGATOR:  # an investigator card is followed by a redraw
                state.drawer = (state.drawer + 1) % state.n
            state.phase = DRAWING
        elif phase == DRAWING:
            if state.deck_pos == len(state.deck):
                state.phase = FORCED
                state.queue = suspicion.forced_order(state)
                state.queue_pos = 0
                continue
            suspicion.draw_card(state)
            state.phase = IN_WINDOW
            suspicion.open_window(state)
        elif phase == FORCED:
            if _forced_accusations(state):
                return
            state.phase = SCORING
        elif phase == SCORING:
            _score_round(state)
            state.phase = SWAPPING
            state.queue = [(state.first_player + i) % state.n for i in range(state.n)]
            state.queue_pos = 0
        elif phase == SWAPPING:
            if state.config.cafe_adler and _next_adler_decision(state):
                return
            _finish_round(state)
            if state.game_over:
                return
        elif phase == CHOOSING_FACES:
            if state.queue_pos < len(state.queue):
                _ask(state, CLUE_FACE, state.queue[state.queue_pos])
                return
            state.phase = DRAWING
        else:  # GAME_OVER
            return


def _ask(state: GameState, kind: int, seat: int, chip: int = -1) -> None:
    state.pending_kind = kind
    state.pending_seat = seat
    state.pending_chip = chip


def _forced_accusations(state: GameState) -> bool:
    """Empty deck: each player who has not accused must, one at a time (RULES.md 4).

    A player with a single target accuses it without being asked; one with none is skipped.
    Returns True when a player has to choose.
    """
    while state.queue_pos < len(state.queue) and not state.round_over:
        seat = state.queue[state.queue_pos]
        options = suspicion.targets(state)
        if state.accused_by[seat] >= 0 or not options:
            state.queue_pos += 1
            continue
        if options & (options - 1) == 0:  # exactly one target: no decision to ask for
            suspicion.accuse(state, seat, options.bit_length() - 1)
            state.queue_pos += 1
            continue
        _ask(state, FORCED_ACCUSATION, seat)
        return True
    return False


def _next_adler_decision(state: GameState) -> bool:
    """8: each holder of a hidden Adler chip decides keep or swap, once per chip, in seat order."""
    while state.queue_pos < len(state.queue):
        seat = state.queue[state.queue_pos]
        for chip in scoring.hidden_adler_chips(state, seat):
            if (seat, chip) in state.adler_offered:
                continue
            state.adler_offered.add((seat, chip))
            if scoring.swap_targets(state, seat, chip):
                _ask(state, CAFE_ADLER, seat, chip)
                return True
        state.queue_pos += 1
    return False


# ---------------------------------------------------------------------- scoring (RULES.md 5-7)
def _score_round(state: GameState) -> None:
    """5: every clue revealed, chips handed out; 3.3: the chief's catcher starts the next round."""
    chief = round_setup.chief(state)
    state.round_chief = chief
    scoring.hand_out(state, chief)
    catcher = next((seat for seat, cat in state.accusations if cat == chief), -1)
    state.next_first_player = catcher if catcher >= 0 else state.first_player


def _finish_round(state: GameState) -> None:
    """6: end the game or start the next round (after the Stasi chip's fate, RULES.md 7)."""
    reasons = scoring.finish_round(state)
    summary = round_summary(state, reasons)
    state.summaries.append(summary)
    if reasons:
        n = state.n
        state.phase = GAME_OVER
        state.game_over = True
        state.final = {
            "reasons": reasons,
            "totals": [scoring.total(state, s) for s in range(n)],
            "gold": [scoring.gold_count(state, s) for s in range(n)],
            "winners": scoring.winners(state),
        }
        summary.update(state.final)
        return
    state.round_index += 1
    round_setup.start_round(state)


# ---------------------------------------------------------------------- decisions
def legal_actions(state: GameState) -> list[int]:
    """The legal actions of the pending decision (empty once the game is over)."""
    kind = state.pending_kind
    if kind == WINDOW:
        return [PASS] + [ACCUSE + c for c in cats_in(suspicion.targets(state))]
    if kind == FORCED_ACCUSATION:
        return [ACCUSE + c for c in cats_in(suspicion.targets(state))]
    if kind == CLUE_FACE:
        return [CLUE_FACE_A, CLUE_FACE_B]
    if kind == CAFE_ADLER:
        seat = state.pending_seat
        targets = scoring.swap_targets(state, seat, state.pending_chip)
        return [KEEP] + [SWAP + k - 1 for k in sorted((other - seat) % state.n for other in targets)]
    return []


def legal_mask(state: GameState) -> np.ndarray:
    """A new int8 array of N_ACTIONS, 1 at the legal actions of the pending decision (all 0 once
    the game is over). Accusation masks are remembered by targets: the same few recur all game."""
    kind = state.pending_kind
    if kind in (WINDOW, FORCED_ACCUSATION):
        key = (suspicion.targets(state) << 1) | (kind == WINDOW)
        mask = _ACCUSATION_MASKS.get(key)
        if mask is None:
            if len(_ACCUSATION_MASKS) >= 1 << 14:
                _ACCUSATION_MASKS.clear()
            targets = key >> 1
            mask = _ACCUSATION_MASKS[key] = np.zeros(N_ACTIONS, dtype=np.int8)
            mask[ACCUSE : ACCUSE + 16] = _BITS16[targets & 0xFFFF]
            mask[ACCUSE + 16 : ACCUSE + 32] = _BITS16[targets >> 16]
            mask[PASS] = key & 1
        return mask.copy()
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    if kind >= 0:
        mask[legal_actions(state)] = 1
    return mask


def is_legal(state: GameState, action: int) -> bool:
    kind = state.pending_kind
    if kind in (WINDOW, FORCED_ACCUSATION):
        if kind == WINDOW and action == PASS:
            return True
        cat = action - ACCUSE
        return 0 <= cat < 32 and (suspicion.targets(state) >> cat) & 1 == 1
    if kind == CLUE_FACE:
        return action in (CLUE_FACE_A, CLUE_FACE_B)
    return kind >= 0 and action in legal_actions(state)


def step(state: GameState, action: int) -> GameState:
    """Apply the pending decision's action and advance to the next decision.

    An illegal action raises ``ValueError`` naming the legal ones and changes nothing.
    """
    if state.pending_kind < 0:
        raise ValueError("the game is over: no decision is pending; start a new game")
    if not is_legal(state, action):
        legal = legal_actions(state)
        raise ValueError(
            f"illegal action {action!r} for seat {state.pending_seat} "
            f"({DECISION_KINDS[state.pending_kind]}): legal actions are "
            + ", ".join(f"{a} ({action_to_string(a)})" for a in legal)
        )
    return apply(state, action)


def apply(state: GameState, action: int) -> GameState:
    """``step`` without the legality check, for callers that have made it (the environment)."""
    seat, kind = state.pending_seat, state.pending_kind
    if kind == WINDOW:
        suspicion.answer_in_window(state, seat, None if action == PASS else action - ACCUSE)
    elif kind == FORCED_ACCUSATION:
        suspicion.accuse(state, seat, action - ACCUSE)
        state.queue_pos += 1
    elif kind == CLUE_FACE:
        round_setup.choose_face(state, seat, action - CLUE_FACE_A)
        state.queue_pos += 1
    else:  # CAFE_ADLER
        if action != KEEP:
            other = (seat + action - SWAP + 1) % state.n
            scoring.adler_swap(state, seat, state.pending_chip, other)
    _advance(state)
    return state


def pop_rewards(state: GameState) -> list[float]:
    """Points won (chip values) per seat since the last call."""
    out = state.rewards
    if any(out):
        state.rewards = [0.0] * state.n
    return out


_ACCUSATION_MASKS: dict[int, np.ndarray] = {}
"""Masks of accusation decisions by targets (shifted left by one) and whether passing is legal."""
_BITS16 = np.unpackbits(np.arange(1 << 16, dtype="<u2").view(np.uint8).reshape(-1, 2), axis=1, bitorder="little")
"""_BITS16[m] = the 16 bits of m, lowest first."""
