"""Trained policies as players: a MaskablePPO checkpoint behind the common :class:`Agent` interface.

A checkpoint is the ``.zip`` that stable-baselines3 saves, or a training run folder holding
``best_model.zip`` (else ``final_model.zip``). Its observation space says which layout it was
trained on (``ckc_env.observation.LAYOUTS``): an environment version's plain observation or the
one with ``belief_features``; the policy is given its observations in that layout whatever the
table plays with. One layout fits 3, 4 and 5 players, so any checkpoint plays any seat count; a
checkpoint whose spaces fit no layout is refused with a message naming the sizes.

torch and sb3-contrib are imported only here, and only when a checkpoint is loaded
(``pip install -e ".[train]"``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .agents.base import Agent
from .engine.actions import N_ACTIONS
from .engine.view import PlayerView
from .observation import LAYOUTS, encoder, layout_by_size


def resolve_checkpoint(path: str | Path) -> Path:
    """The model file of a checkpoint path: the ``.zip`` itself, or the best (else final) model of a run folder."""
    path = Path(path)
    if path.is_dir():
        for name in ("best_model.zip", "final_model.zip"):
            if (path / name).is_file():
                return path / name
        raise ValueError(f"run folder {path} holds neither best_model.zip nor final_model.zip")
    if path.is_file():
        return path
    raise ValueError(f"no checkpoint at {path}: give a model .zip or a run folder")


_MODELS: dict[tuple[Path, int, int], object] = {}


def load_model(path: str | Path):
    """Load a MaskablePPO checkpoint, once per process and file version (tournaments build agents
    per game; a file rewritten during training, e.g. ``latest_model.zip``, is loaded again)."""
    model_path = resolve_checkpoint(path).resolve()
    stat = model_path.stat()
    key = (model_path, stat.st_mtime_ns, stat.st_size)
    if key in _MODELS:
        return _MODELS[key]
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError('playing a checkpoint needs the train extra: pip install -e ".[train]"') from exc
    try:
        model = MaskablePPO.load(model_path, device="cpu")
    except Exception as exc:
        raise ValueError(f"{model_path} is not a MaskablePPO checkpoint this version can load: {exc}") from exc
    _MODELS[key] = model
    return model


def layout_of(model, source: str | Path) -> object:
    """The observation layout a model was trained on; ValueError if it fits none of ours."""
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


def check_checkpoint(path: str | Path) -> None:
    """Load a checkpoint once to fail early with a clear message."""
    layout_of(load_model(path), path)


class PolicyAgent(Agent):
    """Plays a trained MaskablePPO policy (deterministic by default: the most probable legal action;
    otherwise an action drawn from the policy with the agent's own seeded generator)."""

    def __init__(self, path: str | Path, seed: int | None = None, deterministic: bool = True) -> None:
        super().__init__(seed)
        self.path = str(path)
        self.name = self.path
        self.model = load_model(path)
        self.layout = layout_of(self.model, path)
        self.deterministic = deterministic
        self.model.policy.set_training_mode(False)

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
        logits = self.logits(vector)
        legal = observation["action_mask"].astype(bool)
        logits[~legal] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        return int(self.rng.choice(N_ACTIONS, p=probs / probs.sum()))

    def logits(self, vector: np.ndarray) -> np.ndarray:
        """The policy's action logits for one observation. The network is called directly: for one
        observation at a time, ``model.predict``'s checks and distribution objects cost several
        times the forward pass."""
        import torch

        policy = self.model.policy
        with torch.no_grad():
            obs = torch.as_tensor(vector, dtype=torch.float32).unsqueeze(0)
            features = policy.extract_features(obs, policy.pi_features_extractor)
            return policy.action_net(policy.mlp_extractor.forward_actor(features))[0].numpy().astype(np.float64)
