"""Round set-up (RULES.md 3): tiles and clues, the bag, the deck with its investigator cards."""

from __future__ import annotations

from .cards import INVESTIGATOR, N_CATS, N_FEATURES, chief_of
from .options import RoundSetup
from .state import CHOOSING_FACES, DRAWING, NOBODY, GameState


def start_round(state: GameState) -> None:
    """Deal a round and clear the table: 3.1 tiles and clues, 3.2 the deck, 3.3 the first player."""
    n = state.n
    setup = state.options.round(state.round_index)
    deal_tiles(state, setup)
    deal_deck(state, setup)
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


def deal_tiles(state: GameState, setup: RoundSetup) -> None:
    """3.1: every seat draws a tile; 5-n stay in the bag, their faces tossed now but kept hidden."""
    n, rng = state.n, state.rng
    if setup.tiles is not None:
        tiles = list(setup.tiles)
        rest = [f for f in range(N_FEATURES) if f not in tiles]
        if setup.bag is not None:
            bag = list(setup.bag)
        else:
            rest = [rest[i] for i in rng.permutation(len(rest)).tolist()]
            bag = [2 * f + side for f, side in zip(rest, rng.integers(2, size=len(rest)).tolist(), strict=True)]
    elif setup.bag is not None:
        bag = list(setup.bag)
        free = [f for f in range(N_FEATURES) if f not in {c >> 1 for c in bag}]
        tiles = [free[i] for i in rng.permutation(len(free)).tolist()]
    else:
        order = rng.permutation(N_FEATURES).tolist()
        tiles = order[:n]
        bag = [2 * f + side for f, side in zip(order[n:], rng.integers(2, size=5 - n).tolist(), strict=True)]
    state.tiles = tiles
    state.bag = bag
    if setup.clues is not None:
        state.clues = list(setup.clues)
    elif state.config.clue_face == "random":
        # [decision] RULES.md 3.1: the face is a coin toss unless the players choose it.
        state.clues = [2 * f + side for f, side in zip(tiles, rng.integers(2, size=n).tolist(), strict=True)]
    else:
        state.clues = [-1] * n


def deal_deck(state: GameState, setup: RoundSetup) -> None:
    """3.2: the cats shuffled; with 3-4 players the unused investigator cards go into the top half."""
    if setup.deck is not None:
        state.deck = list(setup.deck)
        return
    rng = state.rng
    cats = rng.permutation(N_CATS).tolist()
    k = state.config.investigator_cards
    if k:
        first = cats[:16] + [INVESTIGATOR] * k
        first = [first[i] for i in rng.permutation(len(first)).tolist()]
        cats = first + cats[16:]
    state.deck = cats


def choose_face(state: GameState, seat: int, side: int) -> None:
    """3.1 [option] ``clue_face="choose"``: the seat shows value A (side 0) or B (side 1) of its tile."""
    state.clues[seat] = 2 * state.tiles[seat] + side


def chief(state: GameState) -> int:
    """The chief spy of the round: all players' clues plus the faces of the bag tiles (RULES.md 3)."""
    return chief_of(state.clues + state.bag)
