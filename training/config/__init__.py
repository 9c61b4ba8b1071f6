"""The training configs' schema, declared once (pydantic models): ``ckc-train``'s
(:mod:`.schema`, ``configs/train/*.yaml``) and ``ckc-rllib-train``'s (:mod:`.rllib`), the fields
they are made of and the project's words for a refusal (:mod:`.fields`), the size limits
(:mod:`.limits`) and the reference page written from them (:mod:`.reference`, docs/config.md)."""

from .schema import (
    ENGINES,
    Evaluation,
    FineTune,
    Population,
    Pretrain,
    SelfPlay,
    TrainConfig,
    Vector,
    load_config,
    parse_config,
    seat_specs,
    specs_named,
)

__all__ = [
    "ENGINES",
    "Evaluation",
    "FineTune",
    "Population",
    "Pretrain",
    "SelfPlay",
    "TrainConfig",
    "Vector",
    "load_config",
    "parse_config",
    "seat_specs",
    "specs_named",
]
