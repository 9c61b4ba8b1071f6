"""Reset options: positions fixed by hand, for tests and tutorials.

``reset(seed, options)`` accepts a mapping with any of these keys (everything not given is dealt
from the seeded RNG as usual):

| key | value | fixes |
|---|---|---|
| ``first_player`` | seat 0..n-1 | the first player of round 1 |
| ``deck`` | list of card ids, top first: each cat 0..31 once and the 5-n investigator cards as 32, which must lie in the top 16+(5-n) cards | round 1's deck |
| ``tiles`` | list of n distinct features 0..4, one per seat | which tile each seat draws |
| ``clues`` | list of n clue ids (2*feature+side, side 0 = value A), distinct features | each seat's clue (not with ``clue_face="choose"``: use ``tiles``) |
| ``bag`` | list of the 5-n clue ids left in the bag, in the order investigator cards reveal them | the bag tiles and their tossed faces |
| ``rounds`` | list of mappings with keys ``deck``, ``tiles``, ``clues``, ``bag`` | the same, for rounds 1, 2, ... (instead of the top-level keys) |
| ``chip_order`` | mapping colour -> list of chip tokens in the order they are taken: printed values, ``"stasi"``, ``"adler"`` | the face-down order of a colour's supply |

An inconsistent option raises ``ValueError`` saying why. Unknown keys are ignored, as gymnasium
environments ignore options they do not use (PettingZoo's API test resets with ``{"options": 1}``);
beside known keys, where they are most likely misspelt, with a warning naming the accepted keys.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import COLOURS, GameConfig
from ..files import keys_text, unknown_keys
from .cards import INVESTIGATOR, N_CATS, N_CLUES, N_FEATURES

ROUND_KEYS = ("deck", "tiles", "clues", "bag")
OPTION_KEYS = ("first_player", *ROUND_KEYS, "rounds", "chip_order")


@dataclass(frozen=True)
class RoundSetup:
    """What a round's set-up takes from the options instead of the RNG (None: deal it)."""

    deck: tuple[int, ...] | None = None
    tiles: tuple[int, ...] | None = None
    clues: tuple[int, ...] | None = None
    bag: tuple[int, ...] | None = None


@dataclass(frozen=True)
class ResetOptions:
    first_player: int | None = None
    rounds: tuple[RoundSetup, ...] = ()
    chip_order: Mapping[str, tuple[int | str, ...]] | None = None

    def round(self, index: int) -> RoundSetup:
        return self.rounds[index] if index < len(self.rounds) else RoundSetup()


def _int_list(name: str, value: Any, length: int, low: int, high: int) -> tuple[int, ...]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise ValueError(f"option {name} must be a list of {length} integers from {low} to {high}, got {value!r}")
    items = list(value)
    if len(items) != length:
        raise ValueError(f"option {name} must have {length} entries, got {len(items)}: {items!r}")
    out = []
    for item in items:
        try:
            as_int = int(item)
        except (TypeError, ValueError):
            as_int = None
        if as_int is None or isinstance(item, bool) or as_int != item or not low <= as_int <= high:
            raise ValueError(f"option {name} must hold integers from {low} to {high}, got {item!r} in {items!r}")
        out.append(as_int)
    return tuple(out)


def _parse_round(data: Mapping[str, Any], config: GameConfig, where: str) -> RoundSetup:
    n = config.num_players
    k = config.investigator_cards
    deck = tiles = clues = bag = None
    if data.get("deck") is not None:
        deck = _int_list(f"{where}deck", data["deck"], N_CATS + k, 0, INVESTIGATOR)
        cats = sorted(c for c in deck if c != INVESTIGATOR)
        if cats != list(range(N_CATS)):
            missing = sorted(set(range(N_CATS)) - set(cats))
            raise ValueError(
                f"option {where}deck is not a permutation of the 32 cats plus {k} investigator card(s) "
                f"(id {INVESTIGATOR}): missing cats {missing}"
            )
        top = 16 + k
        if any(card == INVESTIGATOR for card in deck[top:]):
            raise ValueError(
                f"option {where}deck puts an investigator card below the top {top} cards; "
                "RULES.md 3.2 shuffles them into the first half"
            )
    if data.get("tiles") is not None:
        tiles = _int_list(f"{where}tiles", data["tiles"], n, 0, N_FEATURES - 1)
        if len(set(tiles)) != n:
            raise ValueError(f"option {where}tiles={list(tiles)} gives two seats one feature: each tile is drawn once")
    if data.get("clues") is not None:
        if config.clue_face == "choose":
            raise ValueError(
                f"option {where}clues fixes clue faces, but clue_face='choose' lets the players choose them: use tiles"
            )
        clues = _int_list(f"{where}clues", data["clues"], n, 0, N_CLUES - 1)
        features = tuple(c >> 1 for c in clues)
        if len(set(features)) != n:
            raise ValueError(f"option {where}clues={list(clues)} gives two seats one feature: each tile is drawn once")
        if tiles is not None and tiles != features:
            raise ValueError(f"option {where}clues={list(clues)} disagrees with {where}tiles={list(tiles)}")
        tiles = features
    if data.get("bag") is not None:
        bag = _int_list(f"{where}bag", data["bag"], 5 - n, 0, N_CLUES - 1)
        bag_features = {c >> 1 for c in bag}
        if len(bag_features) != len(bag):
            raise ValueError(f"option {where}bag={list(bag)} holds two faces of one tile")
        if tiles is not None and bag_features & set(tiles):
            raise ValueError(f"option {where}bag={list(bag)} holds a tile a seat already drew (tiles {list(tiles)})")
    return RoundSetup(deck=deck, tiles=tiles, clues=clues, bag=bag)


def parse_reset_options(options: Mapping[str, Any] | None, config: GameConfig) -> ResetOptions:
    if not options:
        return ResetOptions()
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a mapping with keys {list(OPTION_KEYS)}, got {options!r}")
    unknown = unknown_keys(options, OPTION_KEYS)
    # Options the environment does not use are ignored, as gymnasium's are; beside known keys an
    # unknown one is most likely misspelt, so it is named.
    if unknown and len(unknown) < len(options):
        warnings.warn(
            f"ignoring unknown reset option(s) {keys_text(unknown)}: accepted options are {list(OPTION_KEYS)}",
            stacklevel=3,
        )
    first_player = options.get("first_player")
    if first_player is not None:
        n = config.num_players
        if isinstance(first_player, bool) or not isinstance(first_player, int) or not 0 <= first_player < n:
            raise ValueError(f"option first_player={first_player!r}: accepted values are seats 0 to {n - 1}")
    top_level = {key: options[key] for key in ROUND_KEYS if options.get(key) is not None}
    rounds_data = options.get("rounds")
    rounds: list[RoundSetup] = []
    if rounds_data is not None:
        if top_level:
            raise ValueError(
                f"options {sorted(top_level)} and rounds both set round 1: give them inside rounds[0] instead"
            )
        if isinstance(rounds_data, (str, bytes, Mapping)) or not isinstance(rounds_data, Sequence):
            raise ValueError(f"option rounds must be a list of mappings with keys {list(ROUND_KEYS)}")
        if len(rounds_data) > config.max_rounds:
            raise ValueError(
                f"option rounds has {len(rounds_data)} entries but a game has at most {config.max_rounds} rounds"
            )
        for i, entry in enumerate(rounds_data):
            if not isinstance(entry, Mapping):
                raise ValueError(f"option rounds[{i}] must be a mapping with keys {list(ROUND_KEYS)}, got {entry!r}")
            bad = unknown_keys(entry, ROUND_KEYS)
            if bad:
                raise ValueError(
                    f"option rounds[{i}] has unknown key(s) {keys_text(bad)}: accepted keys are {list(ROUND_KEYS)}"
                )
            rounds.append(_parse_round(entry, config, f"rounds[{i}]."))
    elif top_level:
        rounds.append(_parse_round(top_level, config, ""))
    chip_order = options.get("chip_order")
    if chip_order is not None:
        if not isinstance(chip_order, Mapping) or not set(chip_order) <= set(COLOURS):
            raise ValueError(
                f"option chip_order must map colours {list(COLOURS)} to lists of chip tokens, got {chip_order!r}"
            )
        chip_order = {colour: tuple(tokens) for colour, tokens in chip_order.items()}
    return ResetOptions(first_player=first_player, rounds=tuple(rounds), chip_order=chip_order)
