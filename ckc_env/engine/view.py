"""What one seat can know at the table: the information set that observations and agents read.

A ``PlayerView`` is a read-only window onto a :class:`~ckc_env.engine.game.Game` for one seat.
It exposes the seat's own clue and chip values and everything public, and nothing else: the
observation encoder and the scripted agents read the game only through it, so a leak would have
to be written here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import scoring
from .actions import CAFE_ADLER
from .game import SCORING

if TYPE_CHECKING:
    from .game import Game


class PlayerView:
    __slots__ = ("_game", "seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat

    # --- the table
    @property
    def num_players(self) -> int:
        return self._game.n

    @property
    def config(self):
        return self._game.config

    @property
    def round_index(self) -> int:
        return self._game.round_index

    @property
    def first_player(self) -> int:
        return self._game.first_player

    @property
    def drawer(self) -> int:
        """Whose turn it is to draw (the drawer of the last card while its window is open; once the
        deck is empty, the player after the last drawer)."""
        return self._game.drawer

    @property
    def game_over(self) -> bool:
        return self._game.game_over

    @property
    def scoring(self) -> bool:
        """True after the round's accusations, while chips and swaps are settled (clues are revealed)."""
        return self._game.phase >= SCORING

    # --- clues
    @property
    def own_tile(self) -> int:
        return self._game.tiles[self.seat]

    @property
    def own_clue(self) -> int:
        """The seat's clue (-1 while its face is still to be chosen)."""
        return self._game.clues[self.seat]

    @property
    def public_clues(self) -> list[int]:
        """Bag tiles revealed by investigator cards, in order (and, once scored, the rest of the bag)."""
        game = self._game
        return list(game.bag) if self.scoring else list(game.public_clues)

    @property
    def exposed_clues(self) -> dict[int, int]:
        """Clues lying face-up: the Stasi card holder's in the round, every seat's once scored."""
        game = self._game
        if self.scoring:
            return dict(enumerate(game.clues))
        holder = game.stasi_exposed
        if holder >= 0 and game.clues[holder] >= 0:
            return {holder: game.clues[holder]}
        return {}

    @property
    def stasi_card(self) -> int:
        """Seat holding the Stasi card (-1: nobody): in the suspicion phase the seat whose clue lies
        face-up; from the hand-out on, whoever took the Stasi chip (exposed next round)."""
        return self._game.stasi_card

    # --- cards
    @property
    def rows(self) -> list[int]:
        return self._game.rows

    @property
    def discards(self) -> list[int]:
        return self._game.discards

    @property
    def table_bits(self):
        """0/1 array [rows, discards, accused][seat][cat] (seat 5 is always empty padding)."""
        return self._game.table_bits

    @property
    def seat_tables(self):
        """``table_bits``, ``chip_counts`` and ``face_up_counts`` in one flat buffer (all public)."""
        return self._game.seat_tables

    @property
    def card_order(self) -> list[tuple[int, int]]:
        """(drawer, card) of every card drawn this round, in order."""
        return self._game.card_order

    @property
    def last_card(self) -> int:
        return self._game.last_card

    @property
    def last_drawer(self) -> int:
        return self._game.last_drawer

    @property
    def deck_size(self) -> int:
        return len(self._game.deck) - self._game.deck_pos

    @property
    def investigators_left(self) -> int:
        game = self._game
        return game.config.investigator_cards - len(game.public_clues)

    # --- accusations
    @property
    def accusations(self) -> list[tuple[int, int]]:
        return self._game.accusations

    @property
    def accused_by(self) -> list[int]:
        return self._game.accused_by

    @property
    def accused_cats(self) -> int:
        return self._game.accused_cats

    @property
    def targets(self) -> int:
        """Cats that may be accused now (in a row, not yet accused)."""
        return self._game.row_cats & ~self._game.accused_cats

    # --- decision
    @property
    def to_act(self) -> bool:
        return self._game.current_seat == self.seat

    @property
    def decision_kind(self) -> int:
        """The kind of this seat's pending decision (-1 when it is not this seat's turn)."""
        return self._game.pending_kind if self.to_act else -1

    @property
    def decision_chip_colour(self) -> int:
        """Colour of the Adler chip the seat is deciding about (-1 otherwise)."""
        game = self._game
        if self.to_act and game.pending_kind == CAFE_ADLER:
            return game.pool.colour[game.pending_chip]
        return -1

    def legal_actions(self) -> list[int]:
        return self._game.legal_actions() if self.to_act else []

    # --- chips
    def colour_counts(self, seat: int) -> list[int]:
        return self._game.colour_counts(seat)

    def face_up_adler_counts(self, seat: int) -> list[int]:
        return [int(c) for c in self._game.face_up_counts[seat]]

    @property
    def chip_counts(self):
        """Chips per [seat][colour] (float array; seat 5 is always empty padding)."""
        return self._game.chip_counts

    @property
    def face_up_counts(self):
        """Face-up Adler chips per [seat][colour] (float array; seat 5 is padding)."""
        return self._game.face_up_counts

    @property
    def pool(self):
        """The game's chips (colour, printed value, kind by chip id): the composition is public."""
        return self._game.pool

    @property
    def own_chips(self) -> list[int]:
        """Ids of the chips this seat holds (it knows their values)."""
        return self._game.holdings[self.seat]

    @property
    def own_chip_values(self) -> list[int]:
        game = self._game
        return [scoring.chip_value(game, chip) for chip in game.holdings[self.seat]]

    @property
    def own_points(self) -> int:
        return scoring.total(self._game, self.seat)

    def own_hidden_adler_counts(self) -> list[int]:
        game = self._game
        counts = [0, 0, 0]
        for chip in scoring.hidden_adler_chips(game, self.seat):
            counts[game.pool.colour[chip]] += 1
        return counts

    @property
    def supply_counts(self) -> list[int]:
        return [len(s) for s in self._game.supply]
