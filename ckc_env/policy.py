"""Trained policies as players: an agent file behind the common :class:`Agent` interface.

A checkpoint is named by its safe agent file (``ckc_env.agent_file``: a card ``.json``, its
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

from . import agent_file
from .agent_file import PolicyNetwork
from .agents.base import Agent
from .engine.actions import N_ACTIONS
from .engine.view import PlayerView
from .observation import LAYOUTS, encoder, layout_by_size

SAFE_SUFFIXES = (".json", ".safetensors")
CHECKPOINT_SUFFIXES = (*SAFE_SUFFIXES, ".zip")


def resolve_checkpoint(path: str | Path) -> Path:
    """The model file a checkpoint path names: the file itself, or a run folder's best (else
    final) model, the safe card before the zip."""
    path = Path(path)
    if path.is_dir():
        for name in (*(f"{m}.json" for m in agent_file.RUN_FOLDER_MODELS), "best_model.zip", "final_model.zip"):
            if (path / name).is_file():
                return path / name
        raise ValueError(f"run folder {path} holds no model: best_model.json, final_model.json or their .zip")
    if not path.is_file():
        raise ValueError(f"no checkpoint at {path}: give an agent card (.json), its .safetensors or a run folder")
    if path.suffix not in CHECKPOINT_SUFFIXES:
        raise ValueError(
            f"{path} is not an agent file: give an agent card (.json), its .safetensors, a run folder, "
            "or a stable-baselines3 .zip with trust"
        )
    return path


def is_safe(path: str | Path) -> bool:
    """Whether a checkpoint path loads without unpickling (its resolved file is a card or safetensors)."""
    return resolve_checkpoint(path).suffix in SAFE_SUFFIXES


_NETWORKS: dict[tuple[Path, int, int], PolicyNetwork] = {}


def load_policy(path: str | Path, trust_checkpoint: bool = False) -> PolicyNetwork:
    """The policy network of a checkpoint, once per process and file version (tournaments build
    agents per game; a file rewritten during training is loaded again). A ``.zip`` is refused
    unless trusted, before anything of it is read."""
    model_path = resolve_checkpoint(path).resolve()
    if model_path.suffix == ".zip" and not agent_file.trusted(trust_checkpoint):
        raise agent_file.untrusted_error(resolve_checkpoint(path))
    if model_path.suffix == ".safetensors":
        model_path = agent_file.card_path(model_path).resolve()
    stat = model_path.stat()
    key = (model_path, stat.st_mtime_ns, stat.st_size)
    if key not in _NETWORKS:
        _NETWORKS[key] = agent_file.load_agent(model_path) if model_path.suffix == ".json" else _from_zip(model_path)
    return _NETWORKS[key]


def _from_zip(path: Path) -> PolicyNetwork:
    """A trusted MaskablePPO zip, loaded by stable-baselines3 (this unpickles) and turned into the
    same NumPy network as its export would give."""
    model = load_sb3(path)
    layout_of(model, path)
    return agent_file.sb3_policy_network(model, path)


def load_sb3(path: str | Path):
    """``MaskablePPO.load`` of a zip the caller has decided to trust (it unpickles the file's data)."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError('loading a stable-baselines3 zip needs the train extra: pip install -e ".[train]"') from exc
    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as exc:
        raise ValueError(f"{path} is not a MaskablePPO checkpoint this version can load: {exc}") from exc


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


def check_checkpoint(path: str | Path, trust_checkpoint: bool = False) -> None:
    """Fail early with a clear message. A safe agent is checked from its card and the safetensors
    header alone; a zip is refused without trust, and with trust loaded once (as stable-baselines3 does)."""
    model_path = resolve_checkpoint(path)
    if model_path.suffix in SAFE_SUFFIXES:
        agent_file.read_card(model_path)
    else:
        load_policy(path, trust_checkpoint)


class PolicyAgent(Agent):
    """Plays a trained policy (deterministic by default: the most probable legal action;
    otherwise an action drawn from the policy with the agent's own seeded generator)."""

    def __init__(
        self, path: str | Path, seed: int | None = None, deterministic: bool = True, trust_checkpoint: bool = False
    ) -> None:
        super().__init__(seed)
        self.path = str(path)
        self.name = self.path
        self.network = load_policy(path, trust_checkpoint)
        self.layout = self.network.layout
        self.deterministic = deterministic

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self.reader = None
        if self.layout.offsets.get("players_chief") is not None:  # reads the table as the game goes
            from .agents.bayes import BayesParams
            from .agents.bayes_v2 import TableReader
            from .observation import PLAYERS_FOLLOW

            self.reader = TableReader(seat, BayesParams(), PLAYERS_FOLLOW)

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        vector = observation["observation"]
        if vector.shape[0] != self.layout.size:  # e.g. trained with beliefs, the table plays without
            vector = encoder(self.layout, view.config).observation(view, self.reader)  # its own view only
        logits = self.network.logits(vector).astype(np.float64)
        legal = observation["action_mask"].astype(bool)
        logits[~legal] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        return int(self.rng.choice(N_ACTIONS, p=probs / probs.sum()))
