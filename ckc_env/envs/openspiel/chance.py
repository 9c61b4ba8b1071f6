"""The chance model: the engine's chance questions (``ckc_env.engine.chance``) asked as OpenSpiel
chance nodes with exact probabilities, so that a game's distribution is the engine's (uniform
permutations):

| question | chance nodes (outcome = action id) |
|---|---|
| the supply | colour by colour (gold, white, black), the chip taken next, uniformly among those left (chip ids) |
| the first player (``first_player="random"``) | one node, a seat |
| a round's deal | the tile features one by one (seats 0..n-1, then the bag in reveal order); each tile's face, 0 = value A, 1 = value B (the seats' faces only when tossed); the deck card by card, top first (cats 0..31, 32 = an investigator card): at one of the top 16 + k places (k = 5 - n investigator cards) an investigator comes with P = investigators left / top places left, each cat left shares the rest |
| a random accusation window's order (when some cat can be accused) | one node: an index into ``engine.suspicion.SEAT_ORDERS[n]`` |
| where the Stasi chip goes back | one node: its place in the black supply |
| the chip a Cafe Adler swap takes | one node: a chip id among those it could take |

A node with a single outcome is skipped (the last tile, the last card, an investigator card that
must come). Each question is a :class:`Question`; :class:`Answers` is the engine's chance source
(``GameState.chance``) while an action is applied: it answers from the outcomes decided so far and
raises :class:`UndecidedError` at the first question not decided yet, which the game then asks as
chance nodes (:func:`~ckc_env.envs.openspiel.course.settle`). So the engine runs unchanged, and its
chance questions are asked where the stream would be read, in the same order. Nothing here needs
OpenSpiel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...config import COLOURS, GameConfig
from ...engine.cards import FEATURES, INVESTIGATOR, N_CATS, N_FEATURES, card_name, clue_name
from ...engine.suspicion import SEAT_ORDERS


class Question:
    """One of the engine's chance questions, asked as a sequence of chance nodes. ``outcomes(partial)``
    gives the next node's (outcome, probability) pairs after the outcomes ``partial``; once
    ``len(partial) == steps``, ``answer(partial)`` is the outcome in the engine's form. Immutable,
    so that states share them."""

    __slots__ = ()
    kind = ""
    steps = 1

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        raise NotImplementedError

    def answer(self, partial: list[int]) -> Any:
        return partial[0]

    def forced(self, partial: list[int]) -> int | None:
        """The next outcome when it is the only one (no chance node is made for it), else None."""
        outcomes = self.outcomes(partial)
        return outcomes[0][0] if len(outcomes) == 1 else None

    def describe(self, partial: list[int], outcome: int) -> str:
        raise NotImplementedError


def uniform(outcomes: Sequence[int]) -> list[tuple[int, float]]:
    """Each outcome with the same probability."""
    p = 1.0 / len(outcomes)
    return [(o, p) for o in outcomes]


class Supply(Question):
    """Each colour's face-down supply: the chip taken next, colour by colour (chip ids)."""

    __slots__ = ("ids", "steps")
    kind = "supply_order"

    def __init__(self, ids_by_colour: Sequence[Sequence[int]]) -> None:
        self.ids = tuple(tuple(ids) for ids in ids_by_colour)
        self.steps = sum(len(ids) for ids in self.ids)

    def _at(self, partial: list[int]) -> tuple[int, list[int]]:
        """The colour asked for now and its chips taken so far."""
        start = 0
        for colour, ids in enumerate(self.ids):
            if len(partial) < start + len(ids):
                return colour, partial[start:]
            start += len(ids)
        raise ValueError("the supply is complete")

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        colour, taken = self._at(partial)
        return uniform([chip for chip in self.ids[colour] if chip not in taken])

    def forced(self, partial: list[int]) -> int | None:
        colour, taken = self._at(partial)
        ids = self.ids[colour]
        return next(chip for chip in ids if chip not in taken) if len(taken) == len(ids) - 1 else None

    def answer(self, partial: list[int]) -> list[list[int]]:
        out, start = [], 0
        for ids in self.ids:  # the engine's supply lists end with the chip taken first
            out.append(partial[start : start + len(ids)][::-1])
            start += len(ids)
        return out

    def describe(self, partial: list[int], outcome: int) -> str:
        colour, taken = self._at(partial)
        return f"{COLOURS[colour]} chip {len(taken) + 1} to be taken: chip {outcome}"


class FirstPlayer(Question):
    __slots__ = ("n",)
    kind = "first_player"

    def __init__(self, n: int) -> None:
        self.n = n

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        return uniform(range(self.n))

    def describe(self, partial: list[int], outcome: int) -> str:
        return f"first player: {outcome}"


class Deal(Question):
    """A round's deal: the tile features in the order drawn, the faces tossed, the deck top first."""

    __slots__ = ("faces", "investigators", "n", "steps")
    kind = "deal"

    def __init__(self, n: int, investigators: int, seat_faces: bool) -> None:
        self.n = n
        self.investigators = investigators
        self.faces = tuple(range(N_FEATURES) if seat_faces else range(n, N_FEATURES))  # tile positions tossed
        self.steps = N_FEATURES + len(self.faces) + N_CATS + investigators

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        i = len(partial)
        if i < N_FEATURES:
            return uniform([f for f in range(N_FEATURES) if f not in partial])
        if i < N_FEATURES + len(self.faces):
            return [(0, 0.5), (1, 0.5)]
        deck = partial[N_FEATURES + len(self.faces) :]
        drawn = set(deck)
        cats = [cat for cat in range(N_CATS) if cat not in drawn]
        investigators = self.investigators - deck.count(INVESTIGATOR)
        if not investigators:
            return uniform(cats)
        p = investigators / (16 + self.investigators - len(deck))  # RULES.md 3.2: in the top 16 + k places
        if p >= 1.0:
            return [(INVESTIGATOR, 1.0)]
        share = (1.0 - p) / len(cats)
        return [(cat, share) for cat in cats] + [(INVESTIGATOR, p)]

    def forced(self, partial: list[int]) -> int | None:
        i = len(partial)
        if i < N_FEATURES - 1 or N_FEATURES <= i < N_FEATURES + len(self.faces):
            return None
        if i == N_FEATURES - 1:
            return next(f for f in range(N_FEATURES) if f not in partial)
        deck = partial[N_FEATURES + len(self.faces) :]
        investigators = self.investigators - deck.count(INVESTIGATOR)
        if investigators and investigators == 16 + self.investigators - len(deck):
            return INVESTIGATOR
        if len(deck) == N_CATS + self.investigators - 1:
            return INVESTIGATOR if investigators else next(c for c in range(N_CATS) if c not in set(deck))
        return None

    def answer(self, partial: list[int]) -> tuple[list[int], list[int], list[int], list[int]]:
        features = partial[:N_FEATURES]
        faces = dict(zip(self.faces, partial[N_FEATURES : N_FEATURES + len(self.faces)], strict=True))
        clues = [2 * f + faces.get(i, 0) for i, f in enumerate(features)]
        return features[: self.n], clues[: self.n], clues[self.n :], partial[N_FEATURES + len(self.faces) :]

    def describe(self, partial: list[int], outcome: int) -> str:
        i = len(partial)
        if i < N_FEATURES:
            where = f"seat {i}" if i < self.n else f"bag tile {i - self.n + 1}"
            return f"tile for {where}: {FEATURES[outcome][0]}"
        if i < N_FEATURES + len(self.faces):
            position = self.faces[i - N_FEATURES]
            return f"face of tile {position + 1}: {clue_name(2 * partial[position] + outcome)}"
        return f"deck card {i - N_FEATURES - len(self.faces) + 1}: {card_name(outcome)}"


class Window(Question):
    __slots__ = ("n",)
    kind = "window_order"

    def __init__(self, n: int) -> None:
        self.n = n

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        return uniform(range(len(SEAT_ORDERS[self.n])))

    def answer(self, partial: list[int]) -> list[int]:
        return SEAT_ORDERS[self.n][partial[0]]

    def forced(self, partial: list[int]) -> int | None:
        return None  # 3! orders at least

    def describe(self, partial: list[int], outcome: int) -> str:
        return "window order: seats " + " ".join(map(str, SEAT_ORDERS[self.n][outcome]))


class StasiPlace(Question):
    __slots__ = ("length",)
    kind = "stasi_place"

    def __init__(self, length: int) -> None:
        self.length = length

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        return uniform(range(self.length + 1))

    def describe(self, partial: list[int], outcome: int) -> str:
        return f"the Stasi chip goes back at place {outcome} of the black supply"


class AdlerPick(Question):
    __slots__ = ("candidates",)
    kind = "adler_pick"

    def __init__(self, candidates: Sequence[int]) -> None:
        self.candidates = tuple(sorted(candidates))

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        return uniform(self.candidates)

    def describe(self, partial: list[int], outcome: int) -> str:
        return f"the swap takes chip {outcome}"


class UndecidedError(Exception):
    """The engine asked a chance question whose outcome is not decided yet."""

    def __init__(self, question: Question) -> None:
        super().__init__(question.kind)
        self.question = question


class Answers:
    """The chance source of one application of an action (``engine.chance.ChanceSource``): the
    outcomes decided so far, given in the order the engine asks; a question past them raises
    :class:`UndecidedError`. ``seat_faces``: whether the seats' clue faces are tossed (``clue_face="random"``)."""

    __slots__ = ("outcomes", "seat_faces", "used")

    def __init__(self, seat_faces: bool, outcomes: Sequence[tuple[str, Any]] = ()) -> None:
        self.seat_faces = seat_faces
        self.outcomes = outcomes
        self.used = 0

    def _take(self, kind: str, question: Callable[[], Question]) -> Any:
        if self.used < len(self.outcomes):
            asked, value = self.outcomes[self.used]
            if asked != kind:
                raise RuntimeError(f"the engine asked for {kind} where {asked} was decided: the course diverged")
            self.used += 1
            return value
        raise UndecidedError(question())

    def supply_order(self, ids_by_colour: Sequence[Sequence[int]]) -> list[list[int]]:
        return self._take("supply_order", lambda: Supply(ids_by_colour))

    def first_player(self, n: int) -> int:
        return self._take("first_player", lambda: FirstPlayer(n))

    def deal(self, n: int, investigators: int) -> tuple[list[int], list[int], list[int], list[int]]:
        return self._take("deal", lambda: Deal(n, investigators, self.seat_faces))

    def window_order(self, orders: Sequence[list[int]]) -> list[int]:
        return self._take("window_order", lambda: Window(len(orders[0])))

    def stasi_place(self, length: int) -> int:
        return self._take("stasi_place", lambda: StasiPlace(length))

    def adler_pick(self, candidates: Sequence[int]) -> int:
        return self._take("adler_pick", lambda: AdlerPick(candidates))


def answers(config: GameConfig, outcomes: Sequence[tuple[str, Any]] = ()) -> Answers:
    """The chance source of a game under ``config`` that knows ``outcomes`` (none: the next action's own)."""
    return Answers(config.clue_face == "random", outcomes)
