"""Players: how a player is named, checked, loaded and built, for either engine.

| module | owns |
|---|---|
| ``specs`` | a player spec's form: a registered name, a name with parameters, a checkpoint path, ``"self"`` |
| ``build`` | a spec checked and loaded once (:func:`resolve`), then built for the scalar or the batched engine |
| ``loading`` | which file a checkpoint path loads (links resolved once, an allowlist of kinds) and the trust rule |
| ``agent_file`` | the safe agent file: a JSON card and safetensors weights, a NumPy network |
| ``policy`` | a trained policy as a scalar player (:class:`~ckc_env.players.policy.PolicyAgent`) |
| ``batch_policy`` | a trained policy as a batched player (:class:`~ckc_env.players.batch_policy.BatchPolicyAgent`) |
| ``rllib`` | an RLlib checkpoint as a player, and its export to an agent file (the ``rllib`` extra) |

The scripted players themselves live with their engines: ``ckc_env.agents`` (scalar) and
``ckc_env.batch.agents`` (batched).
"""

from .build import Player, batch_capable, build, build_batched, is_safe, resolve, seating_key, validate
from .specs import SELF, PlayerSpec, Spec, for_seats, from_text, label, parse

__all__ = [
    "SELF",
    "Player",
    "PlayerSpec",
    "Spec",
    "batch_capable",
    "build",
    "build_batched",
    "for_seats",
    "from_text",
    "is_safe",
    "label",
    "parse",
    "resolve",
    "seating_key",
    "validate",
]
