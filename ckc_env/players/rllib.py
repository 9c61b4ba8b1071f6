"""RLlib checkpoints as players and as safe agent files.

:class:`RLlibAgent` plays the shared module of an RLlib checkpoint (RLlib unpickles it: trust
needed, and the ``rllib`` extra); :func:`save_agent_file` writes the module as a safe agent file
(:mod:`ckc_env.players.agent_file`), which then plays wherever players are named with no ray, no
torch and nothing unpickled. Importing this module imports neither ray nor torch: they are loaded
when a checkpoint is.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..agents.base import Agent, sample
from ..engine.view import PlayerView
from ..observation import encoder, layout_by_size
from .loading import RLLIB_MODULE, AgentSource, require_trust, rllib_module_dir

MODULE_ID = "shared"
"""The one learning module every learning seat maps to (``ckc_env.envs.rllib``)."""


def module_dir(path: str | Path) -> Path:
    """The shared module's folder in an RLlib checkpoint: the algorithm checkpoint, its module
    folder, or a ``ckc-rllib-train`` run folder (its ``checkpoint``)."""
    found = rllib_module_dir(path)
    if found is None:
        raise ValueError(
            f"{path} holds no RLlib checkpoint of the {MODULE_ID!r} module: give a ckc-rllib-train run folder, "
            f"its checkpoint folder or {RLLIB_MODULE} inside it"
        )
    return found


_MODULES: dict[tuple[Path, int], Any] = {}


def load_module(path: str | Path | AgentSource, trust_checkpoint: bool = False):
    """The shared RLModule of a checkpoint, once per process and checkpoint version. RLlib
    unpickles the module's files, so this needs trust (``trust_checkpoint`` or ``CKC_TRUST_CHECKPOINTS=1``)
    and the ``rllib`` extra (a ValueError names it when ray is missing)."""
    from ..cli import need_extra

    need_extra("rllib", "ray")
    from ray.rllib.core.rl_module.rl_module import RLModule

    source = path if isinstance(path, AgentSource) else AgentSource(str(path), "rllib", module_dir(path).resolve())
    if source.kind != "rllib":
        raise ValueError(f"{source.named} is not an RLlib checkpoint (it loads as a {source.kind})")
    require_trust(source, trust_checkpoint)
    folder = source.path
    key = (folder, (folder / "module_state.pkl").stat().st_mtime_ns)
    if key not in _MODULES:
        module = RLModule.from_checkpoint(folder)
        module.eval()
        _MODULES[key] = module
    return _MODULES[key]


class RLlibAgent(Agent):
    """Plays the shared module of an RLlib checkpoint (deterministic by default: the most probable
    legal action; otherwise drawn from the policy with the agent's own seeded generator). Loading
    it unpickles, so it needs trust."""

    def __init__(
        self,
        path: str | Path | AgentSource,
        seed: int | None = None,
        deterministic: bool = True,
        trust_checkpoint: bool = False,
    ) -> None:
        super().__init__(seed)
        import torch

        self._torch = torch
        self.path = path.named if isinstance(path, AgentSource) else str(path)
        self.name = self.path
        self.module = load_module(path, trust_checkpoint)
        size = self.module.observation_space["observations"].shape[0]
        found = layout_by_size(size)
        if found is None:
            raise ValueError(f"{path}: the module reads observations of {size} numbers, which no layout has")
        self.layout = found[2]
        self.deterministic = deterministic

    def act(self, view: PlayerView, observation: Mapping[str, np.ndarray]) -> int:
        torch = self._torch
        vector = observation["observation"]
        if vector.shape[0] != self.layout.size:  # trained with beliefs, the table plays without
            vector = encoder(self.layout, view.config).observation(view, None)
        legal = np.asarray(observation["action_mask"], dtype=np.float32)
        batch = {"obs": {"observations": torch.as_tensor(vector[None]), "action_mask": torch.as_tensor(legal[None])}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy().astype(np.float64)
        logits[legal == 0] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        return sample(self.stream, logits)


# ---------------------------------------------------------------------- the module as a safe agent file
def module_network(module: Any) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The agent card's ``network`` and the tensors of the shared PPO module (separate policy and
    value MLPs, as RLlib's default encoder builds them with ``vf_share_layers: false``): the same
    layers as MaskablePPO's ``MlpPolicy``, so the module plays in NumPy from a safe agent file."""
    import torch

    from ..players.agent_file import dense_layers

    encoder_ = module.encoder
    if not hasattr(encoder_, "actor_encoder") or not hasattr(encoder_, "critic_encoder"):
        raise ValueError("only a module with separate policy and value encoders exports (model.vf_share_layers: false)")

    def layers(net: Any, prefix: str, head: Any, head_name: str) -> list[dict[str, Any]]:
        heads = [m for m in head if isinstance(m, torch.nn.Linear)]
        if len(heads) != 1 or len(list(head)) != 1:
            raise ValueError(f"cannot export the head {head}: one linear layer expected (head_fcnet_hiddens: [])")
        return dense_layers(net, prefix, heads[0], head_name)

    network = {
        "features": "flatten",
        "policy": layers(
            encoder_.actor_encoder.net.mlp, "encoder.actor_encoder.net.mlp", module.pi.net.mlp, "pi.net.mlp.0"
        ),
        "value": layers(
            encoder_.critic_encoder.net.mlp, "encoder.critic_encoder.net.mlp", module.vf.net.mlp, "vf.net.mlp.0"
        ),
    }
    used = {
        f"{layer['tensor']}.{part}"
        for what in ("policy", "value")
        for layer in network[what]
        for part in ("weight", "bias")
    }
    tensors = {name: t.detach().cpu().numpy() for name, t in module.state_dict().items() if name in used}
    return network, tensors


def save_agent_file(
    module: Any,
    prefix: str | Path,
    players: list[int],
    training: dict[str, Any] | None = None,
    evaluation: dict[str, Any] | None = None,
) -> Path:
    """Write the shared module as a safe agent file (``prefix.json`` + ``prefix.safetensors``,
    :mod:`ckc_env.players.agent_file`): it then plays wherever players are named, with no ray, no torch
    and nothing unpickled. Returns the card's path."""
    from ..players.agent_file import write_agent

    size = module.observation_space["observations"].shape[0]
    found = layout_by_size(size)
    if found is None:
        raise ValueError(f"the module reads observations of {size} numbers, which no layout has")
    version, beliefs, _ = found
    network, tensors = module_network(module)
    training = {"algorithm": "RLlib PPO", **(training or {})}
    return write_agent(prefix, tensors, network, version, beliefs, players, training, evaluation)
