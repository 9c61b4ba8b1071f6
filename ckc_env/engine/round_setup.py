"""Round set-up (RULES.md 3): tiles and clues, the bag, the deck with its investigator cards."""

from __future__ import annotations

from .cards import chief_of
from .options import RoundSetup
from .state import CHOOSING_FACES, DRAWING, NOBODY, GameState


def start_round(state: GameState) -> None:
    """Deal a round and clear the table: 3.1 tiles and clues, 3.2 the deck, 3.3 the first player."""
    n = state.n
    setup = state.options.round(state.round_index)
    dealt = state.chance.deal(n, state.config.investigator_cards)  # drawn even where options fix the deal
    deal_tiles(state, setup, dealt)
    deal_deck(state, setup, dealt)
    state.deck_pos = 0
    state.public_clues = []
    state.rows = [0] * n
    state.discards = [0] * n
    state.row_cats = 0
    state.card_order = []
    state.accusations = []
    state.accused_cats = 0
    state.accused_by = [-1] * n
    state.accused_at = [0] * n
    state.round_over = False
    state.last_card = -1
    state.last_drawer = NOBODY
    state.first_player = state.next_first_player
    state.drawer = state.first_player
    state.stasi_exposed, state.stasi_taker = state.stasi_taker, NOBODY  # 7: the taker's clue lies face-up
    state.pending_kind = -1
    state.pending_seat = NOBODY
    state.pending_chip = -1
    state.adler_offered = set()
    state.served = []
    state.swaps = []
    state.round_chief = -1
    if state.config.clue_face == "choose":
        state.phase = CHOOSING_FACES
        state.queue = [(state.first_player + i) % n for i in range(n)]
    else:
        state.phase = DRAWING
        state.queue = []
    state.queue_pos = 0


def deal_tiles(state: GameState, setup: RoundSetup, dealt: tuple) -> None:
    """3.1: every seat draws a tile; 5-n stay in the bag, their faces tossed now but kept hidden.
    ``dealt`` is chance's deal; reset options replace parts of it."""
    n = state.n
    tiles, clues, bag, _ = dealt
    drawn = [c >> 1 for c in clues + bag]  # every feature, in the order drawn
    faces = [c & 1 for c in clues + bag]  # the face tossed at each position
    if setup.tiles is not None:
        tiles = list(setup.tiles)
        if setup.bag is not None:
            bag = list(setup.bag)
        else:  # the other features, in the order drawn, with the faces of their positions
            bag = [2 * f + faces[i] for i, f in enumerate(drawn) if f not in tiles]
    elif setup.bag is not None:
        bag = list(setup.bag)
        taken = {c >> 1 for c in bag}
        tiles = [f for f in drawn if f not in taken][:n]
    state.tiles = list(tiles)
    state.bag = list(bag)
    if setup.clues is not None:
        state.clues = list(setup.clues)
    elif state.config.clue_face == "random":
        # [decision] RULES.md 3.1: the face is a coin toss unless the players choose it.
        state.clues = [2 * f + faces[seat] for seat, f in enumerate(state.tiles)]
    else:
        state.clues = [-1] * n


def deal_deck(state: GameState, setup: RoundSetup, dealt: tuple) -> None:
    """3.2: the cats shuffled; with 3-4 players the unused investigator cards go into the top half."""
    state.deck = list(setup.deck) if setup.deck is not None else list(dealt[3])


def choose_face(state: GameState, seat: int, side: int) -> None:
    """3.1 [option] ``clue_face="choose"``: the seat shows value A (side 0) or B (side 1) of its tile."""
    state.clues[seat] = 2 * state.tiles[seat] + side


def chief(state: GameState) -> int:
    """The chief spy of the round: all players' clues plus the faces of the bag tiles (RULES.md 3)."""
    return chief_of(state.clues + state.bag)
