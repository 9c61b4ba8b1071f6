"""An independent, deliberately simple referee for Checkpoint Charlie, written from RULES.md only.

This module does not import anything from ``ckc_env``: it re-derives the rules from the text of
``RULES.md`` (and the "Rule decisions" of the env card where RULES.md is silent) so that
``tests/test_reference.py`` can play games through the environment's public API and check that an
independent reading of the rules agrees with it, decision by decision and round by round.

Everything random is fixed by a :class:`Deal` (the same things the env's reset options fix): the
first player, each round's deck, clues and bag, and the order in which chips are taken. Three
things stay random and cannot be predicted from the deal:

* the order of an accusation window with ``window_order="random"``: the referee then offers the
  *set* of players who may act next, and accepts whichever of them the environment asks;
* where the Stasi chip lands when it goes back into the black supply (RULES.md 7): once it has
  been returned, the referee knows the order of the other black chips but not the Stasi chip's
  place among them, so when a hand-out could give it to one of several players it stops with a
  ``"chance_stasi"`` decision listing who could have taken it (``None`` = nobody), and is told the
  answer with :meth:`Referee.resolve`;
* which chip a Cafe Adler swap takes from the victim (RULES.md 8: a random one of that colour,
  except face-up Cafe Adler chips): the referee stops with a ``"chance_adler"`` decision listing
  the possible chips ``(value, is_hidden_adler)`` and is told which one the swapper got (the
  swapper sees it, so the test reads it from the swapper's own observation).

Where the env card leaves the order of a seat's several Cafe Adler decisions open, the referee
offers the colours that may be decided next (``Decision.options``) and is told which one was asked.

The referee is a generator-driven state machine: :attr:`Referee.pending` is the next
:class:`Decision` (``None`` once the game is over), :meth:`Referee.step` applies a player's action.
Round summaries are appended to :attr:`Referee.summaries` as rounds end.

With ``clue_face="choose"`` the deal's clues only fix each seat's tile (feature); the face is the
player's action. The env card does not say in which order the players choose, so the referee
accepts any order among the players who have not chosen yet.

Encodings (RULES.md 1, the env card): a cat is the 5-bit number whose bit i is set when the cat
shows value A of feature i; a clue is ``2 * feature + side`` (side 0 = value A); investigator cards
are card 32. Actions: 0 pass, 1 + c accuse cat c, 35 keep, 36 + k - 1 swap with the player k
seats clockwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

INVESTIGATOR = 32
PASS = 0
ACCUSE = 1
CLUE_FACE_A = 33
KEEP = 35
SWAP = 36
COLOURS = ("gold", "white", "black")
STASI = "stasi"
ADLER = "adler"
ADLER_VALUE = {"gold": 3, "white": 1, "black": -1}  # the chip each replaced (RULES.md 8 [decision])
STASI_KEPT_VALUE = -2
DEFAULT_POOL = {"gold": [3, 3, 4, 4, 5], "white": [1] * 6 + [2] * 6, "black": [0] * 4 + [-1] * 4}


# --- cards and clues (RULES.md 1, 3) ---------------------------------------------------------


def has_clue(cat: int, clue: int) -> bool:
    """Whether the cat shows the clue's value (side 0 = value A = bit set)."""
    feature, side = clue // 2, clue % 2
    bit = (cat >> feature) & 1
    return bit == 1 if side == 0 else bit == 0


def match_count(cat: int, clues: list[int]) -> int:
    return sum(1 for clue in clues if has_clue(cat, clue))


def chief_spy(clues: list[int]) -> int:
    """The unique cat with all five clue values."""
    found = [cat for cat in range(32) if match_count(cat, clues) == 5]
    assert len(found) == 1, clues
    return found[0]


def assistants(clues: list[int]) -> list[int]:
    return [cat for cat in range(32) if match_count(cat, clues) == 4]


def colour_for(cat: int, clues: list[int]) -> str:
    """RULES.md 5: chief gold, assistant white, innocent black."""
    m = match_count(cat, clues)
    return "gold" if m == 5 else "white" if m == 4 else "black"


# --- configuration and deal ------------------------------------------------------------------


@dataclass
class Rules:
    num_players: int
    window_order: str = "clockwise_from_drawer"  # or "clockwise_after_drawer", "random"
    reopen_windows: bool = False  # RULES.md 4 [option]: an accusation reopens the window for earlier passers
    clue_face: str = "random"  # or "choose": the clue face is an action (RULES.md 3.1 [option])
    non_accuser_white: str = "chief_in_deck"  # or "chief_uncaught"
    stasi: bool = False
    cafe_adler: bool = False
    max_rounds: int = 5
    target_points: int = 10
    chip_pool: dict = field(default_factory=lambda: {c: list(v) for c, v in DEFAULT_POOL.items()})

    def pool_tokens(self) -> dict[str, list]:
        """The chips of the supply by colour (RULES.md 1, 7, 8): values, plus "stasi" and "adler"."""
        pool = {c: list(self.chip_pool[c]) for c in COLOURS}
        if self.stasi:
            pool["black"].remove(-1)
            pool["black"].append(STASI)
        if self.cafe_adler:
            for colour, count in (("gold", 1), ("white", 2), ("black", 1)):
                for _ in range(count):
                    pool[colour].remove(ADLER_VALUE[colour])
                    pool[colour].append(ADLER)
        return pool


@dataclass
class RoundDeal:
    deck: list[int]  # top first
    clues: list[int]  # one per seat
    bag: list[int]  # clues of the bag tiles, in reveal order


@dataclass
class Deal:
    first_player: int
    rounds: list[RoundDeal]
    chip_order: dict[str, list]  # colour -> tokens in the order they are taken

    def as_options(self, clue_face: str = "random") -> dict:
        """The env's reset options that fix this deal (with ``clue_face="choose"`` only the tiles)."""
        key, clues = ("tiles", lambda clues: [c // 2 for c in clues]) if clue_face == "choose" else ("clues", list)
        return {
            "first_player": self.first_player,
            "rounds": [{"deck": list(r.deck), key: clues(r.clues), "bag": list(r.bag)} for r in self.rounds],
            "chip_order": {c: list(v) for c, v in self.chip_order.items()},
        }


def random_deal(rng, rules: Rules, bias: float = 0.0) -> Deal:
    """A random deal from a ``random.Random``.

    ``bias`` > 0 builds adversarial decks: with that probability each cat is chosen among those
    the (expected) drawer will discard, so rows stay short and targets run out. The drawer
    sequence is computed assuming the first player never changes, which is only a guess after
    round 1; any deck is valid anyway.
    """
    n = rules.num_players
    first = rng.randrange(n)
    rounds = []
    for _ in range(rules.max_rounds):
        features = list(range(5))
        rng.shuffle(features)
        clues = [2 * f + rng.randrange(2) for f in features[:n]]
        bag = [2 * f + rng.randrange(2) for f in features[n:]]
        deck = _deck(rng, n, clues, first, bias)
        rounds.append(RoundDeal(deck, clues, bag))
    order = {}
    for colour, tokens in rules.pool_tokens().items():
        tokens = list(tokens)
        rng.shuffle(tokens)
        order[colour] = tokens
    return Deal(first, rounds, order)


def _deck(rng, n: int, clues: list[int], first: int, bias: float) -> list[int]:
    investigators = 5 - n
    size = 32 + investigators
    top = 16 + investigators
    inv_positions = set(rng.sample(range(top), investigators))
    if bias <= 0:
        cats = list(range(32))
        rng.shuffle(cats)
        head = cats[:16] + [INVESTIGATOR] * investigators
        rng.shuffle(head)
        return head + cats[16:]
    remaining = list(range(32))
    deck = []
    drawer = first
    for pos in range(size):
        if pos in inv_positions:
            deck.append(INVESTIGATOR)
            continue
        discard = [c for c in remaining if not has_clue(c, clues[drawer])]
        pick_from = discard if discard and rng.random() < bias else remaining
        cat = rng.choice(pick_from)
        remaining.remove(cat)
        deck.append(cat)
        drawer = (drawer + 1) % n
    return deck


# --- the referee -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    kind: str  # "clue_face", "window", "forced_accusation", "cafe_adler", "chance_stasi" or "chance_adler"
    seats: tuple  # who may be asked now (one seat unless the window order is random); chances: the answers
    legal: frozenset = frozenset()  # legal actions (the same for every seat in ``seats``)
    options: dict | None = None  # cafe_adler: colour of the hidden chip -> legal actions


class Referee:
    def __init__(self, rules: Rules, deal: Deal) -> None:
        assert rules.num_players in (3, 4, 5)
        assert 1 <= rules.max_rounds <= 5
        self.rules = rules
        self.deal = deal
        self.n = rules.num_players
        n = self.n
        # supply: colour -> ordered list of tokens still to be taken
        self.supply = {c: list(deal.chip_order[c]) for c in COLOURS}
        self.stasi_floating = False  # the Stasi chip is in the black supply at an unknown place
        self.chips = [[] for _ in range(n)]  # per seat: (colour, value, kind), kind "plain", "hidden" or "up"
        self.stasi_kept_by = None  # holder of the Stasi chip at game end
        self.stasi_held_by = None  # holder of the Stasi chip from the hand-out to the end check (RULES.md 7)
        self.stasi_card = None  # seat holding the Stasi card: its clue is exposed this round
        self.first_player = deal.first_player
        self.round_index = -1
        self.summaries: list[dict] = []
        self.game_over = False
        self.decisions = 0
        self.counts = {
            "auto_accusations": 0,
            "forced_skips": 0,
            "investigator_windows": 0,
            "adler_taken_hidden": 0,
            "window_reopened": 0,
            "stasi_ended_black": 0,
        }
        self._new_round_state()
        self._game = self._play()
        self.pending: Decision | None = next(self._game)

    # public helpers ----------------------------------------------------------------------

    def supply_count(self, colour: str) -> int:
        return len(self.supply[colour]) + (1 if colour == "black" and self.stasi_floating else 0)

    def holds_stasi(self, seat: int) -> bool:
        """The Stasi chip lies with ``seat``: held until the end check, or kept at the game's end (-2)."""
        return seat in (self.stasi_kept_by, self.stasi_held_by)

    def points(self, seat: int) -> int:
        total = sum(value for _, value, _ in self.chips[seat])
        if self.holds_stasi(seat):
            total += STASI_KEPT_VALUE
        return total

    def chip_values(self, seat: int) -> list[int]:
        values = [value for _, value, _ in self.chips[seat]]
        if self.holds_stasi(seat):
            values.append(STASI_KEPT_VALUE)
        return sorted(values)

    def colour_counts(self, seat: int) -> list[int]:
        counts = [sum(1 for colour, _, _ in self.chips[seat] if colour == c) for c in COLOURS]
        if self.holds_stasi(seat):
            counts[2] += 1
        return counts

    def adler_counts(self, seat: int, kind: str) -> list[int]:
        """Cafe Adler chips of a seat by colour, ``kind`` "hidden" or "up"."""
        return [sum(1 for colour, _, k in self.chips[seat] if colour == c and k == kind) for c in COLOURS]

    def targets(self) -> list[int]:
        """Cats that may be accused: in a row and not accused this round (RULES.md 4)."""
        accused = {cat for _, cat in self.accusations}
        return sorted(cat for row in self.rows for cat in row if cat not in accused)

    def has_accused(self, seat: int) -> bool:
        return any(who == seat for who, _ in self.accusations)

    def step(self, seat: int, action: int, colour: str | None = None) -> None:
        """Apply a decision; for ``cafe_adler`` also say which colour's chip was decided."""
        d = self.pending
        assert d is not None and not d.kind.startswith("chance"), d
        assert seat in d.seats, (seat, d)
        if d.kind == "cafe_adler":
            assert colour in d.options, (colour, d)
            assert action in d.options[colour], (seat, action, colour, d)
            self.pending = self._game.send((seat, action, colour))
        else:
            assert action in d.legal, (seat, action, d)
            self.pending = self._game.send((seat, action))
        self.decisions += 1

    def resolve(self, answer) -> None:
        """Answer a chance: who took the Stasi chip (a seat or None), or the chip a swap took."""
        d = self.pending
        assert d is not None and d.kind.startswith("chance"), d
        assert answer in d.seats, (answer, d)
        self.pending = self._game.send(answer)

    # the game ---------------------------------------------------------------------------------

    def _new_round_state(self) -> None:
        n = self.n
        self.rows = [[] for _ in range(n)]
        self.discards = [[] for _ in range(n)]
        self.accusations: list[tuple[int, int]] = []  # (seat, cat) in order
        self.accused_after: dict[int, int] = {}  # seat -> cards drawn this round when it accused
        self.cards: list[tuple] = []  # every card drawn this round: (seat, card, where it went)
        self.public_clues: list[int] = []
        self.deck: list[int] = []
        self.drawer = None
        self.last_card = None
        self.last_drawer = None
        self.phase = None
        self.clues = [None] * self.n
        self.bag = []

    def _play(self):
        for r in range(self.rules.max_rounds):
            self.round_index = r
            yield from self._round(self.deal.rounds[r])
            if self.game_over:
                break
        self.pending = None
        yield None  # the game is over: no further decisions

    def _round_over(self) -> bool:
        return len(self.accusations) == self.n - 1

    def _round(self, rd: RoundDeal):
        n = self.n
        self._new_round_state()
        self.clues = list(rd.clues)
        self.bag = list(rd.bag)
        self.deck = list(rd.deck)
        if self.rules.clue_face == "choose":
            # RULES.md 3.1 [option]: each player chooses which face of the drawn tile is up
            self.phase = "clue_face"
            tiles = [clue // 2 for clue in rd.clues]
            self.clues = [None] * n
            while None in self.clues:
                candidates = tuple(s for s in range(n) if self.clues[s] is None)
                who, action = yield Decision("clue_face", candidates, frozenset([CLUE_FACE_A, CLUE_FACE_A + 1]))
                self.clues[who] = 2 * tiles[who] + (action - CLUE_FACE_A)
        drawer = self.first_player
        ended = False
        self.phase = "suspicion"
        while self.deck and not ended:
            card = self.deck.pop(0)
            self.last_card, self.last_drawer, self.drawer = card, drawer, drawer
            if card == INVESTIGATOR:
                self.public_clues.append(self.bag[len(self.public_clues)])
                self.counts["investigator_windows"] += 1
                next_drawer = drawer  # the drawer draws again after the window
                to = "public_clues"
            else:
                if has_clue(card, self.clues[drawer]):
                    self.rows[drawer].append(card)
                    to = "row"
                else:
                    self.discards[drawer].append(card)
                    to = "discard"
                next_drawer = (drawer + 1) % n
            self.cards.append((drawer, card, to))
            ended = yield from self._window(drawer)
            drawer = next_drawer
        if not ended:
            # the deck is empty: forced accusations clockwise from the player after the last drawer
            self.phase = "forced"
            start = (self.last_drawer + 1) % n
            for i in range(n):
                if self._round_over():
                    break
                seat = (start + i) % n
                if self.has_accused(seat):
                    continue
                targets = self.targets()
                if not targets:
                    self.counts["forced_skips"] += 1
                    continue  # cannot accuse: counts as not having accused
                if len(targets) == 1:
                    self.counts["auto_accusations"] += 1
                    self._accuse(seat, targets[0])  # no decision with one legal action
                    continue
                legal = frozenset(ACCUSE + c for c in targets)
                who, action = yield Decision("forced_accusation", (seat,), legal)
                self._accuse(who, action - ACCUSE)
        self.phase = "scoring"
        yield from self._score()

    def _eligible(self, seat: int) -> bool:
        return not self.has_accused(seat) and bool(self.targets())

    def _accuse(self, seat: int, cat: int) -> None:
        self.accusations.append((seat, cat))
        self.accused_after[seat] = len(self.cards)

    def _window(self, drawer: int):
        """One accusation window; returns True when the round ended in it.

        With ``reopen_windows`` (RULES.md 4 [option]) every accusation gives the players who passed
        before it in this window one more decision, after the window's order is through, in that
        order; accusations made before such a decision are all answered by it."""
        n = self.n
        order = self.rules.window_order
        if order == "clockwise_from_drawer":
            seats = [(drawer + i) % n for i in range(n)]
        elif order == "clockwise_after_drawer":
            seats = [(drawer + 1 + i) % n for i in range(n)]
        elif order == "random":
            seats = None  # the env draws an order we cannot know: offer every seat still to ask
        else:
            raise ValueError(order)
        to_ask = set(range(n))  # this pass over the window
        passed: set[int] = set()  # passed since the last accusation
        owed: set[int] = set()  # asked again in the next pass
        while True:
            while True:
                eligible = [s for s in (seats or sorted(to_ask)) if s in to_ask and self._eligible(s)]
                if not eligible:
                    break
                candidates = tuple(eligible) if seats is None else (eligible[0],)
                # a deterministic order skips the seats that are not eligible when their turn comes
                if seats is not None:
                    for s in seats:
                        if s == eligible[0]:
                            break
                        to_ask.discard(s)
                legal = frozenset([PASS] + [ACCUSE + c for c in self.targets()])
                who, action = yield Decision("window", candidates, legal)
                to_ask.discard(who)
                if action == PASS:
                    passed.add(who)
                    continue
                self._accuse(who, action - ACCUSE)
                if self._round_over():
                    return True
                if self.rules.reopen_windows:
                    owed |= passed
                    passed = set()
            if not owed:
                return False
            to_ask, owed = owed, set()
            self.counts["window_reopened"] += 1

    def _take(self, colour: str, stasi_here: bool):
        """Take the next chip of a colour; None when the colour has run out."""
        if colour == "black" and self.stasi_floating and stasi_here:
            self.stasi_floating = False
            return STASI
        if not self.supply[colour]:
            return None
        return self.supply[colour].pop(0)

    def _score(self):
        n = self.n
        clues = self.clues + self.bag  # all five clue values
        chief = chief_spy(clues)
        chief_in_deck = chief in self.deck
        caught_by = [seat for seat, cat in self.accusations if cat == chief]
        exposed = self.stasi_card
        self.stasi_card = None  # back to the middle before the hand-out (RULES.md 7)

        # who takes what, in order: accusers in accusation order, then non-accusers clockwise
        # after the last drawer (env card decision)
        handout = [(seat, colour_for(cat, clues)) for seat, cat in self.accusations]
        start = (self.last_drawer + 1) % n
        non_accusers = [(start + i) % n for i in range(n) if not self.has_accused((start + i) % n)]
        if self.rules.non_accuser_white == "chief_in_deck":
            non_accuser_colour = "white" if chief_in_deck else "black"
        else:
            non_accuser_colour = "white" if not caught_by else "black"
        handout += [(seat, non_accuser_colour) for seat in non_accusers]

        # the Stasi chip's place is unknown once it has been returned: the black takers in order
        # get the known chips, one of them (or nobody, if the known chips suffice) the Stasi chip
        stasi_taker = None
        if self.stasi_floating:
            black_takers = [seat for seat, colour in handout if colour == "black"]
            ordered = len(self.supply["black"])
            possible = black_takers[: ordered + 1]
            options = tuple(possible) + ((None,) if len(black_takers) <= ordered else ())
            if len(options) == 1:
                stasi_taker = options[0]
            elif len(options) > 1:
                stasi_taker = yield Decision("chance_stasi", options)

        received = []
        stasi_taken_by = None
        for seat, colour in handout:
            token = self._take(colour, seat == stasi_taker)
            received.append(token is not None)
            if token == STASI:
                stasi_taken_by = seat  # shown, face-up; held until the end check (RULES.md 7 [decision])
            elif token == ADLER:
                self.chips[seat].append((colour, ADLER_VALUE[colour], "hidden"))
            elif token is not None:
                self.chips[seat].append((colour, token, "plain"))
        if stasi_taken_by is not None:
            self.stasi_held_by = stasi_taken_by  # it takes the Stasi card too
            self.stasi_card = stasi_taken_by

        swaps = []
        if self.rules.cafe_adler:
            self.phase = "cafe_adler"
            yield from self._cafe_adler(swaps)

        next_first = caught_by[0] if caught_by else self.first_player

        # end of the game (RULES.md 6, 7 [decision]): after the swaps, with a held Stasi chip counting
        # -2 and the supply as the hand-out left it; only then does the Stasi chip go back
        totals = [self.points(s) for s in range(n)]
        self.game_over = (
            any(t >= self.rules.target_points for t in totals)
            or any(self.supply_count(c) == 0 for c in COLOURS)
            or self.round_index + 1 == self.rules.max_rounds
        )
        if stasi_taken_by is not None:
            self.stasi_held_by = None
            if self.game_over:
                self.stasi_kept_by = stasi_taken_by  # kept in the last scoring phase: -2
                self.counts["stasi_ended_black"] += self.supply_count("black") == 0
            else:
                self.stasi_floating = True  # back into the black supply, at a random place

        n_acc = len(self.accusations)
        summary = {
            "round": self.round_index + 1,
            "first_player": self.first_player,  # this round's (not part of the env's summary)
            "clues": list(self.clues),
            "public_clues": list(self.public_clues),
            "bag_clues": self.bag[len(self.public_clues) :],
            "chief": chief,
            "chief_drawn": not chief_in_deck,
            "assistants": assistants(clues),
            "cards": list(self.cards),
            "accusations": [
                {
                    "seat": seat,
                    "cat": cat,
                    "colour": handout[i][1],
                    "received": received[i],
                    "cards_drawn": self.accused_after[seat],
                }
                for i, (seat, cat) in enumerate(self.accusations)
            ],
            "non_accusers": [
                {"seat": seat, "colour": non_accuser_colour, "received": received[n_acc + i]}
                for i, seat in enumerate(non_accusers)
            ],
            "stasi_exposed": exposed,
            "stasi_taken_by": stasi_taken_by,
            "swaps": swaps,
            "chip_colours": [self.colour_counts(s) for s in range(n)],
            "supply": [self.supply_count(c) for c in COLOURS],
            "next_first_player": next_first,
            "game_over": self.game_over,
        }
        if self.game_over:
            totals = [self.points(s) for s in range(n)]
            gold = [self.colour_counts(s)[0] for s in range(n)]
            best = max(totals)
            best_gold = max(gold[s] for s in range(n) if totals[s] == best)
            summary["totals"] = totals
            summary["gold"] = gold
            summary["winners"] = [s for s in range(n) if totals[s] == best and gold[s] == best_gold]
        self.summaries.append(summary)
        if not self.game_over:
            self.first_player = next_first

    def _cafe_adler(self, swaps: list[dict]):
        """Cafe Adler decisions (RULES.md 8; env card): seat by seat clockwise from the round's first
        player, once for each hidden Adler chip the seat holds at its turn; a chip with no possible
        swap is not asked about. RULES.md 8 offers a decision "once per holder and chip": a hidden
        Adler chip the seat takes from its victim in a swap is a new (holder, chip) pair, so it is
        offered too, in the same turn."""
        n = self.n
        for i in range(n):
            seat = (self.first_player + i) % n
            todo = [colour for colour, _, kind in self.chips[seat] if kind == "hidden"]
            while todo:
                options = {}
                for colour in set(todo):
                    victims = [
                        v for v in range(n) if v != seat and any(c == colour and k != "up" for c, _, k in self.chips[v])
                    ]
                    if victims:
                        options[colour] = frozenset([KEEP] + [SWAP + (v - seat) % n - 1 for v in victims])
                if not options:
                    break
                _, action, colour = yield Decision("cafe_adler", (seat,), options=options)
                todo.remove(colour)
                if action == KEEP:
                    continue
                victim = (seat + action - SWAP + 1) % n
                possible = tuple(
                    sorted({(v, k == "hidden") for c, v, k in self.chips[victim] if c == colour and k != "up"})
                )
                value, hidden = (yield Decision("chance_adler", possible)) if len(possible) > 1 else possible[0]
                taken = (colour, value, "hidden" if hidden else "plain")
                self.chips[victim].remove(taken)
                self.chips[seat].remove((colour, ADLER_VALUE[colour], "hidden"))
                self.chips[seat].append(taken)
                self.chips[victim].append((colour, ADLER_VALUE[colour], "up"))
                swaps.append({"seat": seat, "with": victim, "colour": colour})
                if hidden:
                    todo.append(colour)  # a chip this seat has not been offered yet
                    self.counts["adler_taken_hidden"] += 1
