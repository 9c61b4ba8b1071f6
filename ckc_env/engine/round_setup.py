"""Round set-up (RULES.md 3): tiles and clues, the bag, the deck with its investigator cards."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import INVESTIGATOR, N_CATS, N_FEATURES, chief_of
from .options import RoundSetup

if TYPE_CHECKING:
    from .game import Game


def deal_tiles(game: Game, setup: RoundSetup) -> None:
    """3.1: every seat draws a tile; 5-n stay in the bag, their faces tossed now but kept hidden."""
    n, rng = game.n, game.rng
    if setup.tiles is not None:
        tiles = list(setup.tiles)
        rest = [f for f in range(N_FEATURES) if f not in tiles]
        if setup.bag is not None:
            bag = list(setup.bag)
        else:
            rest = [rest[i] for i in rng.permutation(len(rest))]
            bag = [2 * f + int(rng.integers(2)) for f in rest]
    elif setup.bag is not None:
        bag = list(setup.bag)
        free = [f for f in range(N_FEATURES) if f not in {c >> 1 for c in bag}]
        tiles = [free[i] for i in rng.permutation(len(free))]
    else:
        order = [int(f) for f in rng.permutation(N_FEATURES)]
        tiles = order[:n]
        bag = [2 * f + int(rng.integers(2)) for f in order[n:]]
    game.tiles = tiles
    game.bag = bag
    if setup.clues is not None:
        game.clues = list(setup.clues)
    elif game.config.clue_face == "random":
        # [decision] RULES.md 3.1: the face is a coin toss unless the players choose it.
        game.clues = [2 * f + int(rng.integers(2)) for f in tiles]
    else:
        game.clues = [-1] * n


def deal_deck(game: Game, setup: RoundSetup) -> None:
    """3.2: the cats shuffled; with 3-4 players the unused investigator cards go into the top half."""
    if setup.deck is not None:
        game.deck = list(setup.deck)
        return
    rng = game.rng
    cats = [int(c) for c in rng.permutation(N_CATS)]
    k = game.config.investigator_cards
    if k:
        first = cats[:16] + [INVESTIGATOR] * k
        first = [first[i] for i in rng.permutation(len(first))]
        cats = first + cats[16:]
    game.deck = cats


def chief(game: Game) -> int:
    """The chief spy of the round: all players' clues plus the faces of the bag tiles (RULES.md 3)."""
    return chief_of(game.clues + game.bag)
