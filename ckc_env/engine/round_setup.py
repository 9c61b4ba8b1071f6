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
    game.tiles = tiles
    game.bag = bag
    if setup.clues is not None:
        game.clues = list(setup.clues)
    elif game.config.clue_face == "random":
        # [decision] RULES.md 3.1: the face is a coin toss unless the players choose it.
        game.clues = [2 * f + side for f, side in zip(tiles, rng.integers(2, size=n).tolist(), strict=True)]
    else:
        game.clues = [-1] * n


def deal_deck(game: Game, setup: RoundSetup) -> None:
    """3.2: the cats shuffled; with 3-4 players the unused investigator cards go into the top half."""
    if setup.deck is not None:
        game.deck = list(setup.deck)
        return
    rng = game.rng
    cats = rng.permutation(N_CATS).tolist()
    k = game.config.investigator_cards
    if k:
        first = cats[:16] + [INVESTIGATOR] * k
        first = [first[i] for i in rng.permutation(len(first)).tolist()]
        cats = first + cats[16:]
    game.deck = cats


def chief(game: Game) -> int:
    """The chief spy of the round: all players' clues plus the faces of the bag tiles (RULES.md 3)."""
    return chief_of(game.clues + game.bag)
