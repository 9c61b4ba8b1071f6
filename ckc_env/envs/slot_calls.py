"""gymnasium's ``call``, ``get_attr`` and ``set_attr`` for the vector environments whose slots are
rows of one batch, not environment objects.

Code written for ``SyncVectorEnv`` asks its sub-environments by name (``np.stack(envs.call(
"action_masks"))``, ``envs.get_attr("action_space")``) and gets one answer per slot. Here a slot
answers what its single-agent game (``CheckpointCharlie-v1``) would answer for the names below; any
other name is refused naming them. Every slot shares the environment's settings, so ``set_attr``
changes nothing and says what to do instead.
"""

from __future__ import annotations

from typing import Any

SLOT_NAMES = ("action_masks", "observation_space", "action_space", "render_mode")
"""The names a slot answers: its learner's legal actions (a method), its spaces and its render mode."""


class SlotCalls:
    """The mixin: needs ``num_envs``, ``action_masks()`` and the ``single_*_space`` attributes."""

    num_envs: int
    action_masks: Any

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """One result per slot, as ``SyncVectorEnv.call``: a method called with ``args`` and
        ``kwargs``, an attribute's value."""
        if name == "action_masks":
            return tuple(self.action_masks(*args, **kwargs))
        return self.get_attr(name)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """One value per slot, as ``SyncVectorEnv.get_attr`` (``action_masks``: each slot's row)."""
        if name == "action_masks":
            return self.call(name)
        values = {
            "observation_space": getattr(self, "single_observation_space", None),
            "action_space": getattr(self, "single_action_space", None),
            "render_mode": None,
        }
        if name not in values:
            raise AttributeError(
                f"a slot of {type(self).__name__} has no {name!r}: its slots are rows of one batch, which "
                f"answer {list(SLOT_NAMES)} (the vector environment's own attributes are read directly)"
            )
        return (values[name],) * self.num_envs

    def set_attr(self, name: str, values: Any) -> None:
        """Refused: the slots share the environment's settings (a new setting is a new environment)."""
        raise AttributeError(
            f"cannot set {name!r} on the slots of {type(self).__name__}: they share the environment's "
            "settings; build a new environment with the setting as an argument"
        )


__all__ = ["SLOT_NAMES", "SlotCalls"]
