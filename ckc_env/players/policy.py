"""Trained policies as players: an agent file behind the common :class:`Agent` interface.

A checkpoint is named by its safe agent file (``ckc_env.players.agent_file``: a card ``.json``, its
``.safetensors`` or a training run folder holding ``best_model.json``, else ``final_model.json``),
which loads without running anything and plays in NumPy, with no torch. A stable-baselines3
``.zip`` (or a run folder that holds only zips) needs unpickling, so it loads only on explicit
trust (``trust_checkpoint=True``, ``--trust-checkpoint``, ``CKC_TRUST_CHECKPOINTS=1``; torch and
sb3-contrib then, ``pip install -e ".[train]"``), and plays through the same NumPy network.

The observation layout a policy was trained on (``ckc_env.observation.LAYOUTS``: an environment
version's plain observation or the one with ``belief_features``) is given its observations
whatever the table plays with. One layout fits 3, 4 and 5 players, so any checkpoint plays any
seat count; one whose spaces fit no layout is refused with a message naming the sizes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..agents.base import Agent, sample
from ..engine.actions import N_ACTIONS
from ..engine.view import PlayerView
from ..files import InputError
from ..observation import LAYOUTS, TableReading, encoder, layout_by_size
from . import agent_file
from .agent_file import PolicyNetwork
from .loading import AgentSource, locate, require_trust


def is_safe(path: str | Path) -> bool:
    """Whether a checkpoint path loads without unpickling (it resolves to an agent card)."""
    return locate(path).kind == "card"


_NETWORKS: dict[tuple[Path, int, int], PolicyNetwork] = {}


def load_policy(path: str | Path | AgentSource, trust_checkpoint: bool = False) -> PolicyNetwork:
    """The policy network of a checkpoint, once per process and file version (tournaments build
    agents per game; a file rewritten during training is loaded again). The path is resolved once
    by the loading rule (``ckc_env.players.loading``): a card loads as it is; a ``.zip`` is refused unless
    trusted, before anything of it is read; an RLlib checkpoint is not a policy file."""
    source = path if isinstance(path, AgentSource) else locate(path)
    if source.kind == "rllib":
        raise InputError(
            f"{source.named} is an RLlib checkpoint: it plays as ckc_env.players.rllib.RLlibAgent, with trust"
        )
    require_trust(source, trust_checkpoint)
    stat = source.path.stat()
    key = (source.path, stat.st_mtime_ns, stat.st_size)
    if key not in _NETWORKS:
        if source.kind == "card":
            _NETWORKS[key] = agent_file.load_agent(source)
        else:
            _NETWORKS[key] = _from_zip(source, trust_checkpoint)
    return _NETWORKS[key]


def _from_zip(source: AgentSource, trust_checkpoint: bool) -> PolicyNetwork:
    """A trusted MaskablePPO zip, loaded by stable-baselines3 (this unpickles) and turned into the
    same NumPy network as its export would give."""
    model = load_sb3(source, trust_checkpoint)
    layout_of(model, source.named)
    return agent_file.sb3_policy_network(model, source.path)


def load_sb3(path: str | Path | AgentSource, trust_checkpoint: bool = False):
    """``MaskablePPO.load`` of a zip (it unpickles the file's data): only a path that resolves to a
    zip archive, and only with trust (``trust_checkpoint`` or ``CKC_TRUST_CHECKPOINTS=1``)."""
    source = path if isinstance(path, AgentSource) else locate(path)
    if source.kind != "zip":
        raise InputError(f"{source.named} is not a stable-baselines3 .zip (it loads as a {source.kind})")
    require_trust(source, trust_checkpoint)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError('loading a stable-baselines3 zip needs the train extra: pip install -e ".[train]"') from exc
    try:
        return MaskablePPO.load(source.path, device="cpu")
    except Exception as exc:
        raise InputError(f"{source.named} is not a MaskablePPO checkpoint this version can load: {exc}") from exc


def layout_of(model, source: str | Path) -> object:
    """The observation layout a stable-baselines3 model was trained on; ValueError if it fits none of ours."""
    obs_space, act_space = model.observation_space, model.action_space
    shape = getattr(obs_space, "shape", None)
    size = shape[0] if shape is not None and len(shape) == 1 else None
    found = layout_by_size(size) if size is not None else None
    if found is None or getattr(act_space, "n", None) != N_ACTIONS:
        sizes = ", ".join(
            f"({layout.size},) ({version}{f', belief_features={beliefs!r}' if beliefs else ''})"
            for version, layouts in LAYOUTS.items()
            for beliefs, layout in layouts.items()
        )
        raise ValueError(
            f"checkpoint {source} was trained on observations of shape {shape} and {act_space}; "
            f"checkpoint_charlie observations are {sizes}, with Discrete({N_ACTIONS}) actions"
        )
    return found[2]


def check_checkpoint(path: str | Path | AgentSource, trust_checkpoint: bool = False) -> PolicyNetwork:
    """Fail early with a clear message: the checkpoint is loaded as it will be played (a card with
    its hash, tensors and a probe of its network; a zip only with trust), once per process."""
    return load_policy(path, trust_checkpoint)


class PolicyAgent(Agent):
    """Plays a trained policy (deterministic by default: the most probable legal action;
    otherwise an action drawn from the policy with the agent's own seeded generator)."""

    def __init__(
        self,
        path: str | Path | AgentSource,
        seed: int | None = None,
        deterministic: bool = True,
        trust_checkpoint: bool = False,
    ) -> None:
        super().__init__(seed)
        self.path = path.named if isinstance(path, AgentSource) else str(path)
        self.name = self.path
        self.network = load_policy(path, trust_checkpoint)
        self.layout = self.network.layout
        self.deterministic = deterministic

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self.reader = None
        if self.layout.offsets.get("players_chief") is not None:  # reads the table as the game goes
            self.reader = TableReading(seat)

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        vector = observation["observation"]
        if vector.shape[0] != self.layout.size:  # e.g. trained with beliefs, the table plays without
            vector = encoder(self.layout, view.config).observation(view, self.reader)  # its own view only
        logits = self.network.logits(vector).astype(np.float64)
        legal = observation["action_mask"].astype(bool)
        logits[~legal] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        return sample(self.stream, logits)
