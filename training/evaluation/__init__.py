"""A training run's evaluations: the learner against the evaluation tables on the same deals every
time, the history they make (``evaluations.json``), the best model, and the pairings
(:mod:`.evaluations`)."""

from .evaluations import (
    Clock,
    Evaluations,
    evaluate,
    evaluation_record,
    first_table,
    learner_result,
    load_history,
)

__all__ = ["Clock", "Evaluations", "evaluate", "evaluation_record", "first_table", "learner_result", "load_history"]
