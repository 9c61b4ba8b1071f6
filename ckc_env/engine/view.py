"""What one seat can know at the table: the information set that observations and agents read.

A ``PlayerView`` is a read-only window onto a :class:`~ckc_env.engine.state.GameState` for one
seat. It exposes the seat's own clue and chip values and everything public, and nothing else: the
observation encoder and the scripted agents read the game only through it, so a leak would have
to be written here. Seat -1 is an onlooker: it may read the public properties only.
"""

from __future__ import annotations

from . import scoring
from .actions import CAFE_ADLER
from .game import legal_actions
from .state import SCORING, GameState


class PlayerView:
    __slots__ = ("_state", "seat")

    def __init__(self, state: GameState, seat: int) -> None:
        self._state = state
        self.seat = seat

    # --- the table
    @property
    def num_players(self) -> int:
        return self._state.n

    @property
    def config(self):
        return self._state.config

    @property
    def round_index(self) -> int:
        return self._state.round_index

    @property
    def first_player(self) -> int:
        return self._state.first_player

    @property
    def drawer(self) -> int:
        """Whose turn it is to draw (the drawer of the last card while its window is open; once the
        deck is empty, the player after the last drawer)."""
        return self._state.drawer

    @property
    def game_over(self) -> bool:
        return self._state.game_over

    @property
    def phase(self) -> int:
        """Where the round stands (``engine.state`` phases: choosing faces, drawing, in a window,
        forced accusations, scoring, swapping, game over): public at the table."""
        return self._state.phase

    @property
    def scoring(self) -> bool:
        """True after the round's accusations, while chips and swaps are settled (clues are revealed)."""
        return self._state.phase >= SCORING

    @property
    def summaries(self) -> list[dict]:
        """The public record of every finished round (see ``engine.summary``)."""
        return self._state.summaries

    # --- clues
    @property
    def own_tile(self) -> int:
        return self._state.tiles[self.seat]

    @property
    def own_clue(self) -> int:
        """The seat's clue (-1 while its face is still to be chosen)."""
        return self._state.clues[self.seat]

    @property
    def public_clues(self) -> list[int]:
        """Bag tiles revealed by investigator cards, in order (and, once scored, the rest of the bag)."""
        state = self._state
        return list(state.bag) if state.phase >= SCORING else list(state.public_clues)

    @property
    def exposed_clues(self) -> dict[int, int]:
        """Clues lying face-up: the Stasi card holder's in the round, every seat's once scored."""
        state = self._state
        if state.phase >= SCORING:
            return dict(enumerate(state.clues))
        holder = state.stasi_exposed
        if holder >= 0 and state.clues[holder] >= 0:
            return {holder: state.clues[holder]}
        return {}

    @property
    def stasi_card(self) -> int:
        """Seat holding the Stasi card (-1: in the middle): the seat whose clue lies face-up during
        the suspicion phase; from the hand-out on, the Stasi chip's taker (exposed next round)."""
        return self._state.stasi_card

    # --- cards
    @property
    def rows(self) -> list[int]:
        return self._state.rows

    @property
    def discards(self) -> list[int]:
        return self._state.discards

    @property
    def card_order(self) -> list[tuple[int, int]]:
        """(drawer, card) of every card drawn this round, in order."""
        return self._state.card_order

    @property
    def cards_drawn(self) -> int:
        return self._state.deck_pos

    @property
    def last_card(self) -> int:
        return self._state.last_card

    @property
    def last_drawer(self) -> int:
        return self._state.last_drawer

    @property
    def deck_size(self) -> int:
        return len(self._state.deck) - self._state.deck_pos

    @property
    def investigators_left(self) -> int:
        state = self._state
        return state.config.investigator_cards - len(state.public_clues)

    # --- accusations
    @property
    def accusations(self) -> list[tuple[int, int]]:
        return self._state.accusations

    @property
    def accused_by(self) -> list[int]:
        return self._state.accused_by

    @property
    def accused_at(self) -> list[int]:
        """Cards drawn this round when each seat accused (0: has not accused)."""
        return self._state.accused_at

    @property
    def accused_cats(self) -> int:
        return self._state.accused_cats

    @property
    def targets(self) -> int:
        """Cats that may be accused now (in a row, not yet accused)."""
        return self._state.row_cats & ~self._state.accused_cats

    # --- decision
    @property
    def to_act(self) -> bool:
        state = self._state
        return state.pending_seat == self.seat and state.pending_kind >= 0

    @property
    def decision_kind(self) -> int:
        """The kind of this seat's pending decision (-1 when it is not this seat's turn)."""
        state = self._state
        return state.pending_kind if state.pending_seat == self.seat else -1

    @property
    def decision_chip_colour(self) -> int:
        """Colour of the Adler chip the seat is deciding about (-1 otherwise)."""
        state = self._state
        if self.to_act and state.pending_kind == CAFE_ADLER:
            return state.pool.colour[state.pending_chip]
        return -1

    def legal_actions(self) -> list[int]:
        return legal_actions(self._state) if self.to_act else []

    # --- chips
    def colour_counts(self, seat: int) -> list[int]:
        """A seat's chips by colour (gold, white, black): colours are public."""
        return self._state.chip_table[seat][:3]

    def face_up_adler_counts(self, seat: int) -> list[int]:
        """A seat's face-up Cafe Adler chips by colour."""
        return self._state.chip_table[seat][3:]

    @property
    def chip_table(self) -> list[list[int]]:
        """Every seat's chips by colour (gold, white, black), then its face-up Cafe Adler chips by
        colour: what the table sees of everyone's chips."""
        return self._state.chip_table

    @property
    def pool(self):
        """The game's chips (colour, printed value, kind by chip id): the composition is public."""
        return self._state.pool

    @property
    def own_chips(self) -> list[int]:
        """Ids of the chips this seat holds (it knows their values)."""
        return self._state.holdings[self.seat]

    @property
    def own_chip_values(self) -> list[int]:
        points = self._state.pool.points
        return [points[chip] for chip in self._state.holdings[self.seat]]

    @property
    def own_points(self) -> int:
        return scoring.total(self._state, self.seat)

    def own_hidden_adler_counts(self) -> list[int]:
        state = self._state
        counts = [0, 0, 0]
        for chip in scoring.hidden_adler_chips(state, self.seat):
            counts[state.pool.colour[chip]] += 1
        return counts

    @property
    def supply_counts(self) -> list[int]:
        return [len(s) for s in self._state.supply]
