"""A world drawn from one seat's information set: the game's state with everything that seat cannot
see dealt afresh, for searches that plan over the worlds a player cannot tell apart (information-set
Monte Carlo tree search: the OpenSpiel front's ``resample_from_infostate``, ``ckc_env.envs.openspiel``).

What is drawn, each from the posterior the chance model gives it:

| hidden | drawn |
|---|---|
| the other seats' clues and tiles, the bag tiles not yet revealed (their order and faces) | one of the consistent hidden assignments, all equally likely (``beliefs.sample_assignment``) |
| the cards left in the deck | a uniformly random order; the investigator cards left uniformly among the top 16 + (5 - n) places left |
| the rest of a random accusation window's order | a uniformly random order of the seats not asked yet |
| the other seats' face-down chips and the face-down supply | the chips the seat cannot see, dealt uniformly among those places (each place keeps its colour); the supply in a random order, the Stasi chip (when in it) at a random place |

Everything public stays: rows, discards, accusations, revealed and face-up clues, the chips' colours
at every seat, face-up Cafe Adler chips, the Stasi chip, whose turn it is; and so does everything
of the seat's own (its tile, clue and chips) and each chip it knows the place of (``known``: the
chips it lost to a Cafe Adler swapper). The world gets a fresh random stream and no reset options,
so nothing of the true game's future is carried over. Hidden lists are sorted before they are
shuffled, so the world depends on the seat's information set and the draws alone: two states the
seat cannot tell apart give the same world for the same draws (a searching player's decisions are
then a function of what it knows, ``agents.rollout``).

What the uniform draws ignore (as the beliefs do): what the other players' decisions reveal,
that the game did not end on points (no seat had reached the target when a round ended), and who
was asked a Cafe Adler decision (which shows who holds a face-down Cafe Adler chip).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .config import BLACK
from .engine.actions import CAFE_ADLER, WINDOW
from .engine.cards import INVESTIGATOR
from .engine.chance import Stream, StreamChance
from .engine.chips import STASI
from .engine.options import ResetOptions
from .engine.state import GAME_OVER, IN_WINDOW, SCORING, GameState
from .engine.view import PlayerView
from .reading.beliefs import sample_assignment

Uniform = Callable[[], float]
"""A source of numbers uniform in [0, 1) (``random.random``, ``numpy.random.Generator.random``, an
OpenSpiel probability sampler)."""


def resample(state: GameState, seat: int, uniform: Uniform, known: Mapping[int, int] | None = None) -> GameState:
    """A copy of ``state`` with everything ``seat`` cannot see drawn afresh (see the module docstring).

    ``known`` maps chips the seat saw go to another seat's face-down chips to that seat; they stay.
    The state itself is not changed.
    """
    world = state.copy()
    world.options = ResetOptions()
    world.stream = Stream(int(uniform() * (1 << 53)))
    world.chance = StreamChance(world.stream)
    if world.phase == GAME_OVER:
        return world
    if world.phase < SCORING:
        _deal_clues(world, seat, uniform)
    _shuffle_deck(world, uniform)
    _shuffle_window(world, uniform)
    _deal_chips(world, seat, uniform, known or {})
    return world


def _below(uniform: Uniform, bound: int) -> int:
    return min(int(uniform() * bound), bound - 1)


def _shuffled(items: list, uniform: Uniform) -> list:
    """A uniformly random permutation (Fisher-Yates)."""
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = _below(uniform, i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def _deal_clues(world: GameState, seat: int, uniform: Uniform) -> None:
    """The unknown seats' tiles and clues and the unrevealed bag tiles from the exact posterior."""
    clues, faces = sample_assignment(PlayerView(world, seat), uniform())
    for other, clue in clues.items():
        if other == seat:  # its own face is still to be chosen: its tile is known
            continue
        world.tiles[other] = clue >> 1
        if world.clues[other] >= 0:  # a face chosen (or tossed) and hidden; else still to be chosen
            world.clues[other] = clue
    revealed = len(world.public_clues)
    taken = set(world.tiles) | {clue >> 1 for clue in world.bag[:revealed]}
    rest = _shuffled([f for f in faces if f not in taken], uniform)
    world.bag = world.bag[:revealed] + [2 * f + faces[f] for f in rest]


def _shuffle_deck(world: GameState, uniform: Uniform) -> None:
    """The undrawn cards in a random order; the investigator cards left among the top places left."""
    start = world.deck_pos
    left = world.deck[start:]
    if len(left) < 2:
        return
    cats = _shuffled(sorted(card for card in left if card != INVESTIGATOR), uniform)
    investigators = len(left) - len(cats)
    top = 16 + world.config.investigator_cards  # RULES.md 3.2: they are shuffled into the top half
    deck = world.deck[:start]
    for position in range(start, len(world.deck)):
        slots = top - position
        if investigators and _below(uniform, slots) < investigators:
            deck.append(INVESTIGATOR)
            investigators -= 1
        else:
            deck.append(cats.pop())
    world.deck = deck


def _shuffle_window(world: GameState, uniform: Uniform) -> None:
    """A random window's seats not asked yet, in a fresh order (who was asked so far is public)."""
    if world.phase != IN_WINDOW or world.pending_kind != WINDOW or world.config.window_order != "random":
        return
    if list(world.queue) != list(world.window_order):  # a reopened window: its order was seen before
        return
    at = world.queue_pos
    order = list(world.window_order[: at + 1]) + _shuffled(sorted(world.window_order[at + 1 :]), uniform)
    world.window_order = world.queue = order


def _deal_chips(world: GameState, seat: int, uniform: Uniform, known: Mapping[int, int]) -> None:
    """The chips the seat cannot see, dealt again among the places they can be, colour by colour."""
    pool = world.pool
    fixed = set(world.holdings[seat]) | world.face_up | set(known)
    if world.pending_kind == CAFE_ADLER and world.pending_seat != seat:
        fixed.add(world.pending_chip)  # another seat decides about it: it stays there
    stasi = next((chip for chip, kind in enumerate(pool.kind) if kind == STASI), -1)
    fixed.add(stasi)  # face-up while held; in the supply, only its place is unknown (below)
    renamed: dict[int, int] = {}
    for colour, supply in enumerate(world.supply):
        places = [
            (other, i)
            for other in range(world.n)
            for i, chip in enumerate(world.holdings[other])
            if chip not in fixed and pool.colour[chip] == colour
        ]
        hidden = [world.holdings[other][i] for other, i in places]
        unseen = [chip for chip in supply if chip != stasi]
        dealt = _shuffled(sorted(hidden + unseen), uniform)
        for (other, i), chip in zip(places, dealt, strict=False):
            renamed[world.holdings[other][i]] = chip
            world.holdings[other][i] = chip
        new_supply = dealt[len(places) :]
        if colour == BLACK and stasi in supply:
            new_supply.insert(_below(uniform, len(new_supply) + 1), stasi)
        world.supply[colour] = new_supply
    # the engine's other records of chip ids follow the chips' new names
    world.served = [(s, cat, colour, renamed.get(chip, chip)) for s, cat, colour, chip in world.served]
    world.adler_offered = {(s, renamed.get(chip, chip)) for s, chip in world.adler_offered}
    world.pending_chip = renamed.get(world.pending_chip, world.pending_chip)
