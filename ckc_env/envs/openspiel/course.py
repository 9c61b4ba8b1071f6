"""The course of a game: everything an OpenSpiel state holds, and how an action moves it on.

The course keeps the engine's state at the last decision. A player's action is applied to a copy
whose chance source (:class:`~ckc_env.envs.openspiel.chance.Answers`) answers from the outcomes
decided so far and raises at the first question not decided yet; the course then holds that
question open, a chance node, and once it is answered the action is applied again to a fresh copy,
with that outcome known (:func:`settle`). Each transition's rewards come from the game's reward
scheme (``ckc_env.table.rewards``); beside them the course records what the information state
strings recall: every decision, as its seat saw it and as the others did, and what each seat saw
of its own chips change hands. Nothing here needs OpenSpiel.
"""

from __future__ import annotations

from ...config import GameConfig
from ...engine import game as engine
from ...engine.actions import CAFE_ADLER, CLUE_FACE, KEEP, SWAP
from ...engine.scoring import total
from ...engine.state import GAME_OVER, SWAPPING, GameState
from ...table.rewards import Scheme
from .chance import Question, UndecidedError, answers

DEAL = -1
"""The action being applied while the game itself is being set up."""


class Course:
    """Everything an OpenSpiel state holds, in one attribute (OpenSpiel clones a Python state by
    deep-copying its attributes: this one copies itself fast, sharing what never changes)."""

    __slots__ = (
        "action", "answers", "config", "engine", "known", "log", "partial", "private", "question", "records",
        "returns", "rewards", "scheme",
    )  # fmt: skip

    def __init__(self, config: GameConfig, scheme: Scheme) -> None:
        n = config.num_players
        self.config = config
        self.scheme = scheme
        self.engine: GameState | None = None  # the engine at the last decision (None while setting up)
        self.action = DEAL  # the action being applied while chance questions are open
        self.question: Question | None = None  # the open chance question
        self.partial: list[int] = []  # its outcomes so far
        self.answers: list[tuple[str, object]] = []  # the questions answered for the action being applied
        self.rewards = [0.0] * n  # of the last transition
        self.returns = [0.0] * n
        self.log: list[tuple[int, str, str]] = []  # every decision: (seat, as the seat saw it, as the others did)
        self.private: list[list[str]] = [[] for _ in range(n)]  # what each seat saw of its own chips change
        self.known: list[dict[int, int]] = [{} for _ in range(n)]  # per seat: chips it saw go to a seat, face-down
        self.records: list[str] = []  # the public record of each finished round, as text (written when read)

    def __deepcopy__(self, memo: dict) -> Course:
        out = Course.__new__(Course)
        out.config, out.scheme, out.action, out.question = self.config, self.scheme, self.action, self.question
        out.engine = None if self.engine is None else self.engine.copy()
        out.partial = list(self.partial)
        out.answers = list(self.answers)
        out.rewards = list(self.rewards)
        out.returns = list(self.returns)
        out.log = list(self.log)
        out.private = [list(seen) for seen in self.private]
        out.known = [dict(known) for known in self.known]
        out.records = list(self.records)
        return out

    def enter(self, world: GameState) -> None:
        """Go on from ``world``, a decision of another course (a world resampled from what a seat
        knows): its engine state, with the returns it has paid by now unless it is over."""
        world.chance = answers(self.config)
        self.engine, self.action, self.question, self.partial, self.answers = world, None, None, [], []
        if not world.game_over:
            paid = self.scheme.pay([float(total(world, s)) for s in range(world.n)], None)
            self.returns = paid or [0.0] * world.n


def settle(course: Course) -> None:
    """Complete the open question's forced steps; once every question is answered, apply the action
    (again) from the last decision, until it reaches the next decision or a question not decided yet."""
    while True:
        question = course.question
        if question is not None:
            partial = course.partial
            while len(partial) < question.steps:
                outcome = question.forced(partial)
                if outcome is None:
                    return  # a chance node
                partial.append(outcome)
            course.answers.append((question.kind, question.answer(partial)))
            course.question, course.partial = None, []
        source = answers(course.config, course.answers)
        try:
            if course.engine is None:
                world = engine.init(course.config, seed=0, chance_source=source)
            else:
                world = course.engine.copy()
                world.chance = source
                engine.apply(world, course.action)
        except UndecidedError as undecided:
            course.question = undecided.question
            continue
        world.chance = answers(course.config)  # the next action is applied to a copy with its own source
        _record(course, world)
        course.engine, course.action, course.answers = world, None, []
        return


def _record(course: Course, world: GameState) -> None:
    """Rewards, the decision's entry in the log, and what each seat saw of its own chips change."""
    before = course.engine
    n = world.n
    winners = world.final["winners"] if world.game_over else None
    course.rewards = course.scheme.pay(engine.pop_rewards(world), winners) or [0.0] * n
    course.returns = [r + s for r, s in zip(course.returns, course.rewards, strict=True)]
    if before is None:
        return
    seat, kind, action = before.pending_seat, before.pending_kind, course.action
    when = f"{before.round_index + 1}.{before.deck_pos}:{seat}:"
    course.log.append((seat, when + str(action), when + ("face" if kind == CLUE_FACE else str(action))))
    if world.phase in (SWAPPING, GAME_OVER) or len(world.summaries) != len(before.summaries):
        _chips_seen(course, before, world)
        if kind == CAFE_ADLER and action != KEEP:
            _swap_seen(course, before, world, seat, (seat + action - SWAP + 1) % n)


def _chips_seen(course: Course, before: GameState, world: GameState) -> None:
    points = world.pool.points
    for seat in range(world.n):
        old, new = before.holdings[seat], world.holdings[seat]
        if old != new:
            gained = sorted(points[c] for c in new if c not in old)
            lost = sorted(points[c] for c in old if c not in new)
            course.private[seat].append(f"{world.round_index + 1}:+{gained}-{lost}")


def _swap_seen(course: Course, before: GameState, world: GameState, seat: int, other: int) -> None:
    """A Cafe Adler swap: ``other`` knows where its chip went; the others no longer know which of
    ``other``'s chips of that colour it was."""
    taken = next(c for c in world.holdings[seat] if c not in before.holdings[seat])
    colour = world.pool.colour
    for observer, known in enumerate(course.known):
        if observer == other:
            known[taken] = seat
        elif observer == seat:
            known.pop(taken, None)
        else:
            for chip in [c for c, holder in known.items() if holder == other and colour[c] == colour[taken]]:
                del known[chip]
