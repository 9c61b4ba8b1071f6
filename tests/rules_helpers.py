"""Helpers for the rule scenario tests (tests/test_rules_*.py).

Positions are built only through the public API: ``raw_env(**config)``, ``reset(seed, options)``
with the documented reset options, ``step``, ``observe``, ``infos`` and ``rewards``. Observation
pieces are read with ``OBSERVATION.view``.

Conventions used by the scenarios:

- ``ALL_A = [0, 2, 4, 6, 8]``: seat i's clue is value A of feature i (the remaining ones go to the
  bag), so the chief is cat 31 and seat i puts a cat into its row iff bit i of the cat is set;
- ``window_order="clockwise_from_drawer"`` unless a test is about the window order;
- the deck is built by :func:`build_deck`: the cards a test cares about on top (or bottom), the
  missing investigator cards at the bottom of the top 16 + (5 - n), the other cats after them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

import ckc_env
from ckc_env.engine.actions import ACCUSE, PASS
from ckc_env.engine.cards import CLUE_CATS, INVESTIGATOR
from ckc_env.observation import OBSERVATION

ALL_A = [0, 2, 4, 6, 8]  # clue = value A of every feature: the chief is cat 31
ALL_B = [1, 3, 5, 7, 9]  # clue = value B of every feature: the chief is cat 0
CHIEF_A = 31
DECISIONS = ("window", "forced_accusation", "clue_face", "cafe_adler")

# Full orderings of the default pool, first chip taken first (RULES.md 1 [decision]).
GOLD = [3, 3, 4, 4, 5]
WHITE = [1] * 6 + [2] * 6
BLACK = [0] * 4 + [-1] * 4


def accuse(cat: int) -> int:
    """Action id of accusing cat ``cat``."""
    return ACCUSE + cat


def agent(seat: int) -> str:
    return f"player_{seat}"


def seat_of(name: str) -> int:
    return int(name.rsplit("_", 1)[1])


def has_clue(cat: int, clue: int) -> bool:
    return bool((CLUE_CATS[clue] >> cat) & 1)


def clue_count(cat: int, clues: Iterable[int]) -> int:
    """How many of the given clue values the cat shows (computed from the bits, not the engine)."""
    return sum(((cat >> (c // 2)) & 1) == 1 - c % 2 for c in clues)


# ---------------------------------------------------------------------- building positions
def make_env(n: int = 5, **config) -> ckc_env.raw_env:
    config.setdefault("window_order", "clockwise_from_drawer")
    config.setdefault("summary_infos", True)  # the rule tests read each round's summary from the infos
    return ckc_env.raw_env(num_players=n, **config)


def drawer_sequence(deck: list, n: int, first: int) -> list[int]:
    """Who draws each card: clockwise, except that an investigator card's drawer draws again."""
    out, d = [], first
    for card in deck:
        out.append(d)
        if card != INVESTIGATOR:
            d = (d + 1) % n
    return out


def build_deck(
    n: int,
    top: Iterable[int] = (),
    bottom: Iterable[int] = (),
    *,
    clues: list[int] | None = None,
    first: int = 0,
    discard_rest: bool = False,
) -> list[int]:
    """A legal ``deck`` reset option: ``top`` first, ``bottom`` last.

    The 5 - n investigator cards not given in ``top`` take the lowest free places of the top
    16 + (5 - n). The other cats fill the free places in increasing order, or, with
    ``discard_rest``, so that each of them lands on its drawer's discard pile (a cat nobody can
    discard, like the chief, may land anywhere: give it in ``top``/``bottom`` to place it).
    """
    k = 5 - n
    size = 32 + k
    top, bottom = list(top), list(bottom)
    deck: list[int | None] = [None] * size
    deck[: len(top)] = top
    if bottom:
        deck[size - len(bottom) :] = bottom
    missing = k - deck.count(INVESTIGATOR)
    for p in reversed(range(16 + k)):
        if missing and deck[p] is None:
            deck[p] = INVESTIGATOR
            missing -= 1
    assert missing == 0, "no room for the investigator cards in the top half"
    rest = [c for c in range(32) if c not in deck]
    free = [p for p, c in enumerate(deck) if c is None]
    assert len(rest) == len(free)
    if not discard_rest:
        for p, c in zip(free, rest, strict=True):
            deck[p] = c
        return deck
    assert clues is not None
    drawer = drawer_sequence(deck, n, first)
    allowed = {}
    for c in rest:
        ok = [p for p in free if not has_clue(c, clues[drawer[p]])]
        allowed[c] = ok or free
    match: dict[int, int] = {}  # place -> cat (Kuhn's augmenting paths)

    def place(c: int, seen: set[int]) -> bool:
        for p in allowed[c]:
            if p not in seen:
                seen.add(p)
                if p not in match or place(match[p], seen):
                    match[p] = c
                    return True
        return False

    for c in sorted(rest, key=lambda c: len(allowed[c])):
        assert place(c, set()), f"cannot place cat {c}"
    for p, c in match.items():
        deck[p] = c
    return deck


# ---------------------------------------------------------------------- reading observations
def piece(env, seat: int, name: str) -> np.ndarray:
    """Observation piece ``name`` of ``seat`` (seat-indexed pieces are relative to ``seat``)."""
    return OBSERVATION.view(env.observe(agent(seat))["observation"], name)


def absolute(env, seat: int, name: str) -> np.ndarray:
    """A seat-indexed piece observed by ``seat``, re-indexed by absolute seat."""
    n = env.unwrapped.config.num_players
    rel = piece(env, seat, name)
    return np.stack([rel[(s - seat) % n] for s in range(n)])


def one_hot_index(vec: np.ndarray) -> int:
    hot = np.flatnonzero(vec)
    assert len(hot) <= 1, vec
    return int(hot[0]) if len(hot) else -1


def cats(bits: np.ndarray) -> set[int]:
    return {int(c) for c in np.flatnonzero(bits)}


def rows(env, observer: int = 0) -> list[set[int]]:
    return [cats(r) for r in absolute(env, observer, "rows")]


def discards(env, observer: int = 0) -> list[set[int]]:
    return [cats(r) for r in absolute(env, observer, "discards")]


def acting(env) -> int:
    return seat_of(env.agent_selection)


def mask(env) -> np.ndarray:
    return env.observe(env.agent_selection)["action_mask"]


def legal(env) -> list[int]:
    return [int(a) for a in np.flatnonzero(mask(env))]


def decision(env) -> str:
    """Kind of the acting agent's pending decision."""
    kind = one_hot_index(piece(env, acting(env), "decision"))
    assert kind >= 0, "the acting agent has no decision"
    return DECISIONS[kind]


def last_card(env, observer: int = 0) -> int:
    return one_hot_index(piece(env, observer, "last_card"))


def last_drawer(env, observer: int = 0) -> int:
    rel = one_hot_index(piece(env, observer, "last_drawer"))
    return -1 if rel < 0 else (observer + rel) % env.unwrapped.config.num_players


def rel_to_abs(env, observer: int, rel: int) -> int:
    return -1 if rel < 0 else (observer + rel) % env.unwrapped.config.num_players


def first_player(env, observer: int = 0) -> int:
    return rel_to_abs(env, observer, one_hot_index(piece(env, observer, "first_player")))


def deck_left(env, observer: int = 0) -> int:
    return round(float(piece(env, observer, "deck_size")[0]) * 34)


def round_number(env, observer: int = 0) -> int:
    return one_hot_index(piece(env, observer, "round")) + 1


def supply(env, observer: int = 0) -> list[int]:
    return [round(float(x) * 20) for x in piece(env, observer, "supply")]


def over(env) -> bool:
    return all(env.terminations.values())


# ---------------------------------------------------------------------- playing
def step(env, action: int, totals: dict | None = None) -> None:
    """``env.step`` that adds the step's rewards (``env.rewards``) into ``totals`` (seat -> sum)."""
    env.step(action)
    if totals is not None:
        for name, r in env.rewards.items():
            totals[seat_of(name)] = totals.get(seat_of(name), 0.0) + r


def act(env, seat: int, action: int, kind: str | None = None, totals: dict | None = None) -> None:
    """Let ``seat`` take ``action``, checking that it is that seat's turn and the action is legal."""
    assert not over(env), "the game is over"
    assert env.agent_selection == agent(seat), f"expected player_{seat} to act, {env.agent_selection} acts"
    if kind is not None:
        assert decision(env) == kind
    assert mask(env)[action] == 1, f"action {action} is not legal for player_{seat}: {legal(env)}"
    step(env, action, totals)


def passes(env, *seats: int, totals: dict | None = None) -> None:
    """The given seats pass, in this order, in accusation windows."""
    for seat in seats:
        act(env, seat, PASS, kind="window", totals=totals)


def pass_until(
    env, stop: Callable[[], bool] | None = None, totals: dict | None = None, limit: int = 2000
) -> list[tuple[int, str]]:
    """Pass in windows until ``stop()``, a decision other than a window, or the game's end.

    Returns the (seat, kind) of every decision passed.
    """
    seen = []
    for _ in range(limit):
        if over(env) or (stop is not None and stop()) or decision(env) != "window":
            return seen
        seen.append((acting(env), "window"))
        step(env, PASS, totals)
    raise AssertionError("pass_until did not stop")


def play_out(
    env, policy: Callable[[object], int] | None = None, totals: dict | None = None, limit: int = 5000
) -> list[dict]:
    """Play to the game's end (default: pass in windows, else the first legal action).

    Returns the decisions as dicts (seat, kind, legal, action).
    """
    log = []
    for _ in range(limit):
        if over(env):
            return log
        actions = legal(env)
        action = policy(env) if policy is not None else actions[0]
        log.append({"seat": acting(env), "kind": decision(env), "legal": actions, "action": action})
        step(env, action, totals)
    raise AssertionError("the game did not end")


def random_policy(rng: np.random.Generator) -> Callable[[object], int]:
    return lambda env: int(rng.choice(legal(env)))


def summary(env, seat: int = 0) -> dict:
    return env.infos[agent(seat)]["round_summary"]


def own_chips(env, seat: int) -> list[int]:
    return sorted(env.infos[agent(seat)]["own_chips"]["values"])


# ---------------------------------------------------------------------- scripted 3-player rounds
BAG3 = [6, 8]  # 3 players with ALL_A[:3]: the bag holds "newspaper" and "grey"; the chief is cat 31


def round3(top, bottom=()):
    """One 3-player round setup (seat i's clue: value A of feature i; chief 31)."""
    return {"clues": ALL_A[:3], "bag": BAG3, "deck": build_deck(3, top=top, bottom=bottom)}


# Scripted 3-player rounds, first player 0. Each returns the script's (seat, action) pairs.
ROUND_CATCH = (round3([CHIEF_A, 2]), [(0, accuse(CHIEF_A)), (1, accuse(2))])  # 0 gold, 1 black, 2 black
ROUND_INNOCENTS = (round3([1, 2]), [(0, accuse(1)), (1, accuse(2))])  # 0 black, 1 black, 2 white (chief in deck)
ROUND_ASSISTANTS = (  # seats 2 then 0 accuse assistants (white); 1 does not accuse: white (chief in deck)
    round3([29, 30]),
    [(0, 0), (1, 0), (2, 0), (1, 0), (2, accuse(30)), (0, accuse(29))],
)


def play_script(env, script, totals=None):
    for seat, action in script:
        act(env, seat, action, totals=totals)
