"""The game as a state machine: set-up, suspicion, scoring, swaps and game end, round after round.

``Game`` holds the whole state as plain data and advances by itself through everything that needs
no decision (draws, placements, single-option accusations, hand-outs) until a player has a
decision with at least two legal actions, or the game is over. The rules themselves live in the
modules named after them: ``round_setup`` (RULES.md 3), ``suspicion`` (4), ``scoring`` (5-8).

    game = Game(GameConfig(num_players=4))
    game.reset(seed=7)
    while not game.game_over:
        game.step(game.legal_actions()[0])
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import permutations
from typing import Any

import numpy as np

from ..config import COLOURS, GameConfig
from . import round_setup, scoring, suspicion
from .actions import (
    ACCUSE,
    CAFE_ADLER,
    CLUE_FACE,
    CLUE_FACE_A,
    CLUE_FACE_B,
    DECISION_KINDS,
    FORCED_ACCUSATION,
    KEEP,
    PASS,
    SWAP,
    WINDOW,
    action_to_string,
)
from .cards import ASSISTANTS, INVESTIGATOR, cats_in
from .chips import ChipPool, build_pool, shuffled_supply
from .options import ResetOptions, parse_reset_options

SEAT_TABLES_SIZE = 3 * 6 * 32 + 6 * 3 + 6 * 3

# Phases of the state machine, in the order of a round (from SCORING on, the clues are revealed).
CHOOSING_FACES, DRAWING, IN_WINDOW, FORCED, SCORING, SWAPPING, GAME_OVER = range(7)


class Game:
    """The full state of one game and the transitions between decisions."""

    def __init__(self, config: GameConfig | None = None) -> None:
        self.config = config if config is not None else GameConfig()
        self.n = self.config.num_players
        self.pool: ChipPool = build_pool(self.config)
        self.chip_points = self.pool.points
        self.rng = np.random.default_rng()
        self.options = ResetOptions()
        self.phase = GAME_OVER

    # ------------------------------------------------------------------ game set-up (RULES.md 2)
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        options = parse_reset_options(options, self.config)  # fails before anything changes
        self.rng = np.random.default_rng(seed)
        self._order_draws: list[int] = []
        self._order_pos = 0
        self.options = options
        n = self.n
        self.supply: list[list[int]] = shuffled_supply(self.pool, self.rng, self.options.chip_order)
        self.holdings: list[list[int]] = [[] for _ in range(n)]
        self.face_up: set[int] = set()
        self.seat_tables = np.zeros(SEAT_TABLES_SIZE, dtype=np.float32)
        self._bind_tables()
        self.rewards: list[float] = [0.0] * n
        self.round_index = 0
        if self.options.first_player is not None:
            self.first_player = self.options.first_player
        elif self.config.first_player == "random":
            self.first_player = int(self.rng.integers(n))
        else:
            self.first_player = int(self.config.first_player)
        self.next_first_player = self.first_player
        self.stasi_card = -1  # seat holding the Stasi card (RULES.md 7)
        self.stasi_taker = -1  # seat that took the Stasi chip in the last scoring
        self.summaries: list[dict] = []
        self.final: dict | None = None
        self.game_over = False
        self._start_round()
        self._advance()

    # ------------------------------------------------------------------ round set-up (RULES.md 3)
    def _start_round(self) -> None:
        n = self.n
        setup = self.options.round(self.round_index)
        round_setup.deal_tiles(self, setup)
        round_setup.deal_deck(self, setup)
        self.deck_pos = 0
        self.public_clues: list[int] = []
        self.rows = [0] * n
        self.discards = [0] * n
        self.table_bits[:] = 0.0
        self.row_cats = 0
        self.card_order: list[tuple[int, int]] = []
        self.accusations: list[tuple[int, int]] = []
        self.accused_cats = 0
        self.accused_by = [-1] * n
        self.round_over = False
        self.last_card = -1
        self.last_drawer = -1
        self.first_player = self.next_first_player
        self.drawer = self.first_player
        self.stasi_card, self.stasi_taker = self.stasi_taker, -1
        self.stasi_exposed = self.stasi_card  # whose clue lies face-up for the whole round
        self.pending_kind = -1
        self.pending_seat = -1
        self.pending_chip = -1
        self.adler_offered: set[tuple[int, int]] = set()
        if self.config.clue_face == "choose":
            self.phase = CHOOSING_FACES
            self.queue = [(self.first_player + i) % n for i in range(n)]
        else:
            self.phase = DRAWING
            self.queue = []
        self.queue_pos = 0

    # ------------------------------------------------------------------ running until a decision
    def _advance(self) -> None:
        """Play everything that needs no decision, up to the next decision or the game's end."""
        self.pending_kind = -1
        while True:
            phase = self.phase
            if phase == IN_WINDOW:
                if self.round_over:
                    self.phase = SCORING
                    continue
                queue, accused_by = self.queue, self.accused_by
                if suspicion.targets(self):  # eligibility: has not accused, and a target exists
                    while self.queue_pos < len(queue):
                        seat = queue[self.queue_pos]
                        if accused_by[seat] < 0:
                            self._ask(WINDOW, seat)
                            return
                        self.queue_pos += 1
                if self.last_card != INVESTIGATOR:  # an investigator card is followed by a redraw
                    self.drawer = (self.drawer + 1) % self.n
                self.phase = DRAWING
            elif phase == DRAWING:
                if self.deck_pos == len(self.deck):
                    self.phase = FORCED
                    self.queue = suspicion.forced_order(self)
                    self.queue_pos = 0
                    continue
                suspicion.draw_card(self)
                self.phase = IN_WINDOW
                self.queue = suspicion.window_order(self)
                self.queue_pos = 0
            elif phase == FORCED:
                if self._forced_accusations():
                    return
                self.phase = SCORING
            elif phase == SCORING:
                self._score_round()
                self.phase = SWAPPING
                self.queue = [(self.first_player + i) % self.n for i in range(self.n)]
                self.queue_pos = 0
            elif phase == SWAPPING:
                if self.config.cafe_adler and self._next_adler_decision():
                    return
                self._finish_round()
                if self.game_over:
                    return
            elif phase == CHOOSING_FACES:
                if self.queue_pos < len(self.queue):
                    self._ask(CLUE_FACE, self.queue[self.queue_pos])
                    return
                self.phase = DRAWING
            else:  # GAME_OVER
                return

    def _ask(self, kind: int, seat: int, chip: int = -1) -> None:
        self.pending_kind = kind
        self.pending_seat = seat
        self.pending_chip = chip

    def _forced_accusations(self) -> bool:
        """Empty deck: each player who has not accused must, one at a time (RULES.md 4).

        A player with a single target accuses it without being asked; one with none is skipped.
        Returns True when a player has to choose.
        """
        while self.queue_pos < len(self.queue) and not self.round_over:
            seat = self.queue[self.queue_pos]
            options = suspicion.targets(self)
            if self.accused_by[seat] >= 0 or not options:
                self.queue_pos += 1
                continue
            if options & (options - 1) == 0:  # exactly one target: no decision to ask for
                suspicion.accuse(self, seat, options.bit_length() - 1)
                self.queue_pos += 1
                continue
            self._ask(FORCED_ACCUSATION, seat)
            return True
        return False

    def _next_adler_decision(self) -> bool:
        """8: each holder of a hidden Adler chip decides keep or swap, once per chip, in seat order."""
        while self.queue_pos < len(self.queue):
            seat = self.queue[self.queue_pos]
            for chip in scoring.hidden_adler_chips(self, seat):
                if (seat, chip) in self.adler_offered:
                    continue
                self.adler_offered.add((seat, chip))
                if scoring.swap_targets(self, seat, chip):
                    self._ask(CAFE_ADLER, seat, chip)
                    return True
            self.queue_pos += 1
        return False

    # ------------------------------------------------------------------ scoring (RULES.md 5, 7)
    def _score_round(self) -> None:
        chief = round_setup.chief(self)
        self.round_chief = chief
        self.stasi_card = -1  # 7: the card goes back to the middle before chips are handed out
        served = scoring.hand_out(self, chief)
        # 7: whoever took the Stasi chip takes the card (for the next round); the chip goes back.
        self.stasi_taker = scoring.return_stasi_chip(self) if self.config.stasi else -1
        self.stasi_card = self.stasi_taker
        catcher = next((seat for seat, cat in self.accusations if cat == chief), -1)
        self.next_first_player = catcher if catcher >= 0 else self.first_player
        self.served = served
        self.swaps: list[dict] = []

    def _finish_round(self) -> None:
        """6: end the game or start the next round."""
        reasons = scoring.game_end_reasons(self)
        if reasons and self.stasi_taker >= 0:
            scoring.keep_stasi_chip(self, self.stasi_taker)
        summary = self._round_summary(reasons)
        self.summaries.append(summary)
        if reasons:
            self.phase = GAME_OVER
            self.game_over = True
            self.final = {
                "reasons": reasons,
                "totals": [scoring.total(self, s) for s in range(self.n)],
                "gold": [scoring.gold_count(self, s) for s in range(self.n)],
                "winners": scoring.winners(self),
            }
            summary.update(self.final)
            return
        self.round_index += 1
        self._start_round()

    def _round_summary(self, reasons: list[str]) -> dict:
        """Everything revealed at the round's end: public to all (own chip values are added per seat)."""
        chief = self.round_chief
        return {
            "round": self.round_index + 1,
            "clues": list(self.clues),
            "public_clues": list(self.public_clues),
            "bag_clues": self.bag[len(self.public_clues) :],
            "stasi_exposed": None if self.stasi_exposed < 0 else self.stasi_exposed,
            "chief": chief,
            "chief_drawn": chief not in self.deck[self.deck_pos :],
            "assistants": list(ASSISTANTS[chief]),
            "accusations": [
                {"seat": r["seat"], "cat": r["cat"], "colour": COLOURS[r["colour"]], "received": r["chip"] is not None}
                for r in self.served
                if r["cat"] is not None
            ],
            "non_accusers": [
                {"seat": r["seat"], "colour": COLOURS[r["colour"]], "received": r["chip"] is not None}
                for r in self.served
                if r["cat"] is None
            ],
            "stasi_taken_by": None if self.stasi_taker < 0 else self.stasi_taker,
            "swaps": list(self.swaps),
            "chip_colours": [self.colour_counts(s) for s in range(self.n)],
            "supply": [len(s) for s in self.supply],
            "next_first_player": self.next_first_player,
            "game_over": bool(reasons),
        }

    # ------------------------------------------------------------------ decisions
    @property
    def current_seat(self) -> int:
        """The seat that has to decide (-1 when the game is over)."""
        return self.pending_seat if self.pending_kind >= 0 else -1

    def legal_actions(self) -> list[int]:
        kind = self.pending_kind
        if kind == WINDOW:
            return [PASS] + [ACCUSE + c for c in cats_in(suspicion.targets(self))]
        if kind == FORCED_ACCUSATION:
            return [ACCUSE + c for c in cats_in(suspicion.targets(self))]
        if kind == CLUE_FACE:
            return [CLUE_FACE_A, CLUE_FACE_B]
        if kind == CAFE_ADLER:
            seat = self.pending_seat
            offsets = sorted((other - seat) % self.n for other in scoring.swap_targets(self, seat, self.pending_chip))
            return [KEEP] + [SWAP + k - 1 for k in offsets]
        return []

    def fill_legal_mask(self, out: np.ndarray) -> np.ndarray:
        """Set ``out`` (zeros, length N_ACTIONS) to 1 at the legal actions of the pending decision."""
        kind = self.pending_kind
        if kind in (WINDOW, FORCED_ACCUSATION):
            free = suspicion.targets(self)
            out[ACCUSE : ACCUSE + 16] = _BITS[free & 0xFFFF]
            out[ACCUSE + 16 : ACCUSE + 32] = _BITS[free >> 16]
            if kind == WINDOW:
                out[PASS] = 1
        elif kind >= 0:
            out[self.legal_actions()] = 1
        return out

    def is_legal(self, action: int) -> bool:
        kind = self.pending_kind
        if kind in (WINDOW, FORCED_ACCUSATION):
            if kind == WINDOW and action == PASS:
                return True
            cat = action - ACCUSE
            return 0 <= cat < 32 and (suspicion.targets(self) >> cat) & 1 == 1
        if kind == CLUE_FACE:
            return action in (CLUE_FACE_A, CLUE_FACE_B)
        return kind >= 0 and action in self.legal_actions()

    def step(self, action: int) -> None:
        """Apply the pending decision's action and advance to the next decision."""
        if self.pending_kind < 0:
            raise ValueError("the game is over: no decision is pending; call reset()")
        if not self.is_legal(action):
            legal = self.legal_actions()
            raise ValueError(
                f"illegal action {action!r} for seat {self.pending_seat} "
                f"({DECISION_KINDS[self.pending_kind]}): legal actions are "
                + ", ".join(f"{a} ({action_to_string(a)})" for a in legal)
            )
        self.apply(action)

    def apply(self, action: int) -> None:
        """``step`` without the legality check, for callers that have made it (the environment)."""
        seat, kind = self.pending_seat, self.pending_kind
        if kind == WINDOW:
            if action != PASS:
                suspicion.accuse(self, seat, action - ACCUSE)
            self.queue_pos += 1
        elif kind == FORCED_ACCUSATION:
            suspicion.accuse(self, seat, action - ACCUSE)
            self.queue_pos += 1
        elif kind == CLUE_FACE:
            self.clues[seat] = 2 * self.tiles[seat] + (action - CLUE_FACE_A)
            self.queue_pos += 1
        else:  # CAFE_ADLER
            if action != KEEP:
                other = (seat + action - SWAP + 1) % self.n
                taken = scoring.adler_swap(self, seat, self.pending_chip, other)
                self.swaps.append({"seat": seat, "with": other, "colour": COLOURS[self.pool.colour[taken]]})
        self._advance()

    # ------------------------------------------------------------------ helpers for views
    def gain(self, seat: int, value: float) -> None:
        """Record points won (chip values) for the environment's reward."""
        self.rewards[seat] += value

    def random_seat_order(self) -> list[int]:
        """A uniformly random order of the seats, drawn from the game's one Generator.

        Draws are taken 64 at a time: a window opens after nearly every card, and one
        ``Generator`` call per window would cost more than the rest of the window's work.
        """
        if self._order_pos == len(self._order_draws):
            self._order_draws = self.rng.integers(len(_SEAT_ORDERS[self.n]), size=64).tolist()
            self._order_pos = 0
        self._order_pos += 1
        return list(_SEAT_ORDERS[self.n][self._order_draws[self._order_pos - 1]])

    def pop_rewards(self) -> list[float]:
        """Points won since the last call, per seat."""
        out = self.rewards
        if any(out):
            self.rewards = [0.0] * self.n
        return out

    def _bind_tables(self) -> None:
        """Per-seat tables as views of one buffer, ``seat_tables``, so that an observation can copy
        them all with a single gather. Seat index 5 is never used: it stays zero, as padding.

        - ``table_bits[k, seat, cat]``: 1 if the cat is in the seat's row (k=0), discard pile (k=1),
          or is the cat the seat accused (k=2) this round;
        - ``chip_counts[seat, colour]``: chips held by colour;
        - ``face_up_counts[seat, colour]``: face-up Cafe Adler chips held by colour.
        """
        buffer = self.seat_tables
        self.table_bits = buffer[:576].reshape(3, 6, 32)
        self.chip_counts = buffer[576:594].reshape(6, 3)
        self.face_up_counts = buffer[594:612].reshape(6, 3)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for view in ("table_bits", "chip_counts", "face_up_counts"):
            state.pop(view, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "seat_tables" in state:
            self._bind_tables()

    def give_chip(self, seat: int, chip: int) -> None:
        self.holdings[seat].append(chip)
        self.chip_counts[seat, self.pool.colour[chip]] += 1
        if chip in self.face_up:
            self.face_up_counts[seat, self.pool.colour[chip]] += 1

    def drop_chip(self, seat: int, chip: int) -> None:
        self.holdings[seat].remove(chip)
        self.chip_counts[seat, self.pool.colour[chip]] -= 1
        if chip in self.face_up:
            self.face_up_counts[seat, self.pool.colour[chip]] -= 1

    def colour_counts(self, seat: int) -> list[int]:
        counts = [0, 0, 0]
        for chip in self.holdings[seat]:
            counts[self.pool.colour[chip]] += 1
        return counts


_SEAT_ORDERS = {n: list(permutations(range(n))) for n in (3, 4, 5)}
"""Every order of the seats, for random accusation windows."""

_BITS = np.unpackbits(np.arange(1 << 16, dtype="<u2").view(np.uint8).reshape(-1, 2), axis=1, bitorder="little")
"""_BITS[m] = the 16 bits of m, lowest first."""
