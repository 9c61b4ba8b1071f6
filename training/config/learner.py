"""The learner's sections of a training config: PPO's arguments (:class:`PPO`, MaskablePPO's, which
the JAX trainer takes too) and the networks (:class:`Policy`, MlpPolicy's). A config keeps their
values as given (``to_dict`` writes them back, so that a run's digest is the same whatever the
version): these sections check them."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from ckc_env.table.options import fail

from . import limits
from .fields import Choice, Described, Flag, Integer, Number, Section


class PPO(Section):
    """MaskablePPO's arguments (the JAX trainer takes the same, with the same defaults): the keys a
    config may set, each with its range. Values are kept as given (``to_dict`` writes them back)."""

    learning_rate: Number(0, 1, low_open=True) = 3e-4
    """Adam's step size."""
    n_steps: Integer(2) = 2048
    """Steps per game slot (or environment) in a rollout: a rollout is n_steps x slots decisions."""
    batch_size: Integer(2) = 64
    """Decisions per minibatch (the JAX trainer: a divisor of the rollout)."""
    n_epochs: Integer(1) = 10
    """Passes over each rollout."""
    gamma: Number(0, 1, low_open=True) = 0.99
    """The discount."""
    gae_lambda: Number(0, 1) = 0.95
    """GAE's lambda."""
    clip_range: Number(0, 1, low_open=True) = 0.2
    """The clipped surrogate's range."""
    clip_range_vf: Number(0, low_open=True, none=True) = None
    """The value loss's clipping (null: none)."""
    normalize_advantage: Flag = True
    """Advantages normalised per minibatch."""
    ent_coef: Number(0) = 0.0
    """The entropy bonus."""
    vf_coef: Number(0) = 0.5
    """The value loss's weight."""
    max_grad_norm: Number(0, low_open=True) = 0.5
    """Gradients clipped at this global norm."""
    target_kl: Number(0, low_open=True, none=True) = None
    """An iteration's epochs stop once the KL passes 1.5 x this (null: never)."""
    stats_window_size: Integer(1) = 100
    """Episodes in SB3's rolling statistics."""


ACTIVATIONS = ("tanh", "relu")


class Policy(Section):
    """MlpPolicy's ``policy_kwargs`` (the JAX trainer builds the same networks). Kept as given."""

    net_arch: Described("a list of up to 16 layer widths from 1 to 4096, or {pi: [...], vf: [...]}") = Field(
        default_factory=lambda: [64, 64]
    )
    """Layer widths shared by both heads (e.g. [256, 256]), or ``{pi: [...], vf: [...]}``."""
    activation_fn: Choice(*ACTIVATIONS) = "tanh"
    """Both networks' hidden activation."""
    ortho_init: Flag = True
    """Orthogonal initialisation (else PyTorch's default)."""

    @field_validator("net_arch")
    @classmethod
    def _net_arch(cls, value: Any) -> Any:
        accepted = (
            f"a list of up to {limits.MAX_LAYERS} layer widths from 1 to {limits.MAX_WIDTH} (e.g. [256, 256]) "
            "or {pi: [...], vf: [...]}"
        )
        lists = list(value.values()) if isinstance(value, dict) else [value]
        if isinstance(value, dict) and set(value) != {"pi", "vf"}:
            fail("policy.net_arch", value, accepted)
        for widths in lists:
            if (
                not isinstance(widths, list)
                or len(widths) > limits.MAX_LAYERS
                or not all(
                    isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= limits.MAX_WIDTH for w in widths
                )
            ):
                fail("policy.net_arch", value, accepted)
        return value
