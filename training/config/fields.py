"""What the config schemas are made of: sections validated by pydantic, the accepted values of
each field declared beside its type, and pydantic's errors said in the project's words.

A field is declared once, with its range: ``Count(1, MAX_TIMESTEPS)`` is an integer from 1 to
a trillion; ``Number(0, 1, low_open=True)`` a finite number in (0, 1]. The same declaration
validates a YAML file, gives the error message and writes the config reference
(:mod:`training.config.reference`). A bad value is refused as every bad value of the project
is, naming the key, the value and the accepted values::

    invalid ppo.gamma=1.5: accepted values are a number > 0 and <= 1
    unknown key(s) ['ppo.lr']: accepted keys are ['learning_rate', 'n_steps', ...]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

from ckc_env.files import short

if TYPE_CHECKING:
    from typing_extensions import Self

YAML_NUMBERS = " (write 1_000_000, not 1e6: YAML reads 1e6 as text)"
YAML_FLOATS = " (YAML reads 3e-4 as text: write 0.0003)"


@dataclass(frozen=True)
class Accepted:
    """The accepted values of a field, in words (what its refusal says and the reference prints)."""

    text: str
    hint: str = ""  # what a refusal adds (YAML's reading of 1e6)
    number: bool = False  # a number: a text given for it gets YAML's hint


class Section(BaseModel):
    """A config section: frozen, strict types (``1`` is no ``true``, ``"3e-4"`` no number), unknown keys refused."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, strict=True, arbitrary_types_allowed=True, use_attribute_docstrings=True
    )

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (``total_timesteps`` from the command line, ...)."""
        return self.model_copy(update=changes)

    def to_dict(self) -> dict[str, Any]:
        """Every key with its value, a section's as a mapping of its own: what ``config.yaml``
        records and a run's digest is made of."""
        out: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            out[name] = value.to_dict() if isinstance(value, Section) else value
        return out


def game_section(game: Any, counts: bool) -> dict[str, Any]:
    """A config's ``game`` section: a mapping of ``GameConfig``'s options, its values checked (with
    ``counts``, ``num_players`` may be a list of counts, each checked), as given."""
    from ckc_env.config import GameConfig
    from ckc_env.table.options import player_counts

    if not isinstance(game, Mapping):
        raise ValueError(f"game must be a mapping with keys {list(GameConfig.fields())}, got {short(game)}")
    unknown = [key for key in game if key not in GameConfig.fields()]
    if unknown:
        named = [f"game.{key}" if isinstance(key, str) else key for key in unknown]
        raise ValueError(f"unknown key(s) {short(named)}: accepted keys are {list(GameConfig.fields())}")
    if not counts:
        GameConfig.from_dict(game)  # validates the values
        return dict(game)
    found = player_counts(game.get("num_players", GameConfig.num_players))
    for n in found:
        GameConfig.from_dict({**game, "num_players": n})  # validates the values
    return {**game, "num_players": list(found)} if len(found) > 1 else dict(game)


def Count(low: int = 1, high: int | None = None) -> Any:
    """An integer from ``low`` to ``high``."""
    from .limits import MAX_COUNT

    high = MAX_COUNT if high is None else high
    return Annotated[int, Field(ge=low, le=high), Accepted(f"an integer >= {low} and <= {high:_}", YAML_NUMBERS)]


def Number(low: float | None = None, high: float | None = None, low_open: bool = False, none: bool = False) -> Any:
    """A finite number in [low, high] ((low, high] with ``low_open``), or null with ``none``."""
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        bounds.append(f"<= {high}")
    text = f"a number {' and '.join(bounds)}".strip() + (" or null" if none else "")
    field = Field(
        allow_inf_nan=False,
        **({"gt" if low_open else "ge": low} if low is not None else {}),
        **({"le": high} if high is not None else {}),
    )
    kind = float | None if none else float
    return Annotated[kind, field, Accepted(text, number=True)]


def Integer(low: int, none: bool = False) -> Any:
    """An integer >= ``low`` (PPO's step counts: SB3 sets no upper bound), or null with ``none``."""
    kind = int | None if none else int
    return Annotated[kind, Field(ge=low), Accepted(f"an integer >= {low}" + (" or null" if none else ""))]


Flag = Annotated[bool, Accepted("true or false")]


def Described(text: str, kind: Any = Any) -> Any:
    """A field its validator checks (a player spec, a mapping by count, ...), its accepted values in words."""
    return Annotated[kind, Accepted(text)]


"""A YAML boolean."""


def Choice(*choices: str, text: str | None = None) -> Any:
    """One of ``choices`` (``text``: the accepted values in words, if not ``'a' or 'b'``)."""
    from typing import Literal

    return Annotated[Literal[choices], Accepted(text or " or ".join(repr(c) for c in choices))]


S = TypeVar("S", bound=BaseModel)


def validate(model: type[S], data: Any, section: str = "", context: dict[str, Any] | None = None) -> S:
    """``data`` as a ``model``, or a ValueError in the project's words naming the first bad key."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{section} must be a mapping with keys {list(model.model_fields)}, got {short(data)}")
    unknown = [key for key in data if key not in model.model_fields]  # keys of any type: 1, null, ...
    if unknown:
        where = f"{section}." if section else ""
        named = [f"{where}{key}" if isinstance(key, str) else key for key in unknown]
        raise ValueError(f"unknown key(s) {short(named)}: accepted keys are {list(model.model_fields)}")
    try:
        return model.model_validate(dict(data), context=context)
    except ValidationError as exc:
        raise ValueError(message(model, exc, section)) from None


def message(model: type[BaseModel], exc: ValidationError, section: str = "") -> str:
    """The first error of a validation, in the project's words."""
    error = exc.errors(include_url=False)[0]
    if error["type"] == "value_error":  # a validator's own ValueError: its message is the project's
        return str(error["ctx"]["error"])
    loc = [part for part in error["loc"] if not isinstance(part, int)]
    key = ".".join([*([section] if section else []), *map(str, loc)])
    info, owner = _field(model, loc)
    if error["type"] == "extra_forbidden" and owner is not None:  # in a nested section
        accepted_keys = list(owner.model_fields)
        return f"unknown key(s) {short([key])}: accepted keys are {accepted_keys}"
    accepted = accepted_of(info)
    value = error.get("input")
    hint = YAML_FLOATS if accepted is not None and accepted.number and isinstance(value, str) else ""
    hint = hint or (accepted.hint if accepted is not None else "")
    text = accepted.text if accepted is not None else error["msg"]
    return f"invalid {key}={short(value)}: accepted values are {text}{hint}"


def accepted_of(info: FieldInfo | None) -> Accepted | None:
    """A field's :class:`Accepted`, from its annotation's metadata."""
    if info is None:
        return None
    for item in info.metadata:
        if isinstance(item, Accepted):
            return item
    return None


def _field(model: type[BaseModel], loc: list[Any]) -> tuple[FieldInfo | None, type[BaseModel] | None]:
    """The field an error's location names, and the section that holds it."""
    owner: Any = model
    info = None
    for part in loc:
        fields = getattr(owner, "model_fields", None)
        if not fields or part not in fields:
            return info, owner if isinstance(owner, type) and issubclass(owner, BaseModel) else None
        info = fields[part]
        owner = _model_in(info.annotation) or owner
    return info, None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The section a field holds (``Vector | None`` -> ``Vector``)."""
    import typing

    for kind in (annotation, *typing.get_args(annotation)):
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind
    return None


def load(path: Any, parse: Any) -> Any:
    """A config file read within bounds (``ckc_env.config.load_yaml_mapping``) and ``parse``-d; a
    ValueError names the file and the key."""
    from ckc_env.config import load_yaml_mapping

    data = load_yaml_mapping(path)
    try:
        return parse(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc
