"""Agent files that run no code: a trained policy as a ``.safetensors`` file and a JSON card beside it.

Why: stable-baselines3 stores parts of a model's ``.zip`` as cloudpickle blobs that its ``load``
unpickles, so merely loading a downloaded zip can run any code (stable-baselines3 issue 2281).
A safetensors file is a JSON header and raw little-endian buffers: nothing in it executes. The
network is rebuilt from the card, never from the file, and filled from the tensors.

``best_model.json`` (the card; a ``.json`` path, the ``.safetensors`` path or a run folder all name it)::

    {"format": "ckc-env-agent", "format_version": 1,
     "weights": {"file": "best_model.safetensors", "sha256": "..."},
     "environment": {"name": "checkpoint_charlie", "version": "v0", "belief_features": true,
                     "observation_size": 845, "action_count": 40},
     "players": [5],
     "network": {"features": "flatten",
                 "policy": [{"tensor": "mlp_extractor.policy_net.0", "inputs": 845, "outputs": 256, "activation": "tanh"},
                            ..., {"tensor": "action_net", "inputs": 256, "outputs": 40, "activation": "identity"}],
                 "value": [..., {"tensor": "value_net", "inputs": 256, "outputs": 1, "activation": "identity"}]},
     "training": {"algorithm": "MaskablePPO", "seed": 0, "timesteps": 100000, "config": {...}},
     "evaluation": {...}}

Each layer is ``x @ weight.T + bias`` then its activation, exactly as MaskablePPO's ``MlpPolicy``
builds it (tensor names are the policy's ``state_dict`` names); ``policy`` ends in the 40 action
logits, ``value`` in the state value. ``players`` lists the counts the weights were trained at (a
fine-tuned model's start's among them: ``init_from`` accepts a start for those counts). The
observation is the environment version's layout (``ckc_env.observation.LAYOUTS``), which fits 3, 4
and 5 players.

Loading (:func:`load_agent`) checks the card, the file's hash and every tensor's name, dtype and
shape, and gives a :class:`PolicyNetwork` that runs in NumPy: evaluating a safe agent needs no
torch. :func:`read_card` checks the card against the safetensors header alone (no tensor data is
read), for validating player specs. With torch installed, :func:`save_sb3` writes a MaskablePPO
model in this format and :func:`torch_policy` rebuilds the SB3 policy from it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..config import PLAYER_COUNTS
from ..engine.actions import N_ACTIONS
from ..files import CARD_BYTES, InputError, read_bytes, read_json, short, short_text, write_atomic
from ..layout import Layout
from ..observation import LAYOUTS
from .loading import AgentSource, locate, weights_beside

FORMAT = "ckc-env-agent"
FORMAT_VERSION = 1
ENVIRONMENT = "checkpoint_charlie"
ACTIVATIONS = ("tanh", "relu", "identity")
CARD_KEYS = ("format", "format_version", "weights", "environment", "players", "network", "training", "evaluation")
WEIGHTS_BYTES = 1 << 30
"""A weights file holds at most 1 GiB (the shipped networks are about 2.5 MB)."""


# ---------------------------------------------------------------------------------------------- the card
@dataclass(frozen=True)
class Dense:
    """One layer: ``x @ weight.T + bias`` with ``weight`` of shape (outputs, inputs), then the activation."""

    tensor: str
    inputs: int
    outputs: int
    activation: str

    def to_json(self) -> dict[str, Any]:
        return {"tensor": self.tensor, "inputs": self.inputs, "outputs": self.outputs, "activation": self.activation}

    def shapes(self) -> dict[str, list[int]]:
        return {f"{self.tensor}.weight": [self.outputs, self.inputs], f"{self.tensor}.bias": [self.outputs]}


@dataclass(frozen=True)
class AgentCard:
    """A checked card: everything needed to rebuild the network and to know what it plays."""

    path: Path
    weights_file: str
    weights_sha256: str
    version: str
    belief_features: bool | str
    players: tuple[int, ...]
    policy: tuple[Dense, ...]
    value: tuple[Dense, ...]
    training: dict[str, Any] | None
    evaluation: dict[str, Any] | None

    @property
    def weights_path(self) -> Path:
        """The weights beside the card, resolved and checked by the loading rule (``ckc_env.players.loading``)."""
        return weights_beside(self.path, self.weights_file)

    def weights_bytes(self) -> int:
        """The size of the tensors' data the card's network needs (float32)."""
        return sum(4 * int(np.prod(shape)) for shape in self.shapes().values())

    @property
    def layout(self) -> Layout:
        return LAYOUTS[self.version][self.belief_features]

    def shapes(self) -> dict[str, list[int]]:
        """Every tensor the weights file must hold, with its shape."""
        return {name: shape for layer in self.policy + self.value for name, shape in layer.shapes().items()}


def card_path(path: str | Path | AgentSource) -> Path:
    """The card a path names (a ``.json`` card, the card beside a ``.safetensors`` file, or a run
    folder's best, else final, model), resolved and checked by the loading rule (``ckc_env.players.loading``)."""
    source = path if isinstance(path, AgentSource) else locate(path)
    if source.kind != "card":
        what = "a stable-baselines3 zip" if source.kind == "zip" else "an RLlib checkpoint"
        raise InputError(f"{source.named} is {what}, not a safe agent file: give its card (.json) or a run folder")
    return source.path


def _need(where: str, data: dict[str, Any], key: str, kind: type | tuple[type, ...], meaning: str) -> Any:
    if key not in data:
        raise InputError(f"{where}: missing key {key!r} ({meaning})")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise InputError(f"{where}: {key}={short(value)} is not {meaning}")
    return value


def _layers(where: str, layers: Any, inputs: int, outputs: int, what: str) -> tuple[Dense, ...]:
    if not isinstance(layers, list) or not layers:
        raise InputError(f"{where}: network.{what} must be a non-empty list of layers, got {short(layers)}")
    out = []
    width = inputs
    for k, layer in enumerate(layers):
        at = f"{where}: network.{what}[{k}]"
        if not isinstance(layer, dict):
            raise InputError(f"{at} must be a mapping with tensor, inputs, outputs, activation; got {short(layer)}")
        tensor = _need(at, layer, "tensor", str, "a tensor name")
        size_in = _need(at, layer, "inputs", int, "a positive integer")
        size_out = _need(at, layer, "outputs", int, "a positive integer")
        activation = _need(at, layer, "activation", str, f"one of {list(ACTIVATIONS)}")
        if activation not in ACTIVATIONS:
            raise InputError(f"{at}: activation {short(activation)} is not one of {list(ACTIVATIONS)}")
        if size_in != width or size_out <= 0:
            raise InputError(f"{at} takes {size_in} inputs with {size_out} outputs, but its input has {width} numbers")
        out.append(Dense(tensor, size_in, size_out, activation))
        width = size_out
    if width != outputs:
        raise InputError(f"{where}: network.{what} ends with {width} outputs, it must give {outputs}")
    if out[-1].activation != "identity":
        raise InputError(f"{where}: network.{what} must end in a linear layer (activation 'identity')")
    return tuple(out)


def parse_card(data: Any, path: Path) -> AgentCard:
    """Check a card's content (ValueError naming the key and what is accepted)."""
    where = f"agent card {path}"
    if not isinstance(data, dict):
        raise InputError(f"{where}: a card is a JSON object with keys {list(CARD_KEYS)}")
    if data.get("format") != FORMAT:
        raise InputError(f"{where}: format={short(data.get('format'))}, expected {FORMAT!r} (is this an agent card?)")
    if data.get("format_version") != FORMAT_VERSION:
        raise InputError(
            f"{where}: format_version={short(data.get('format_version'))}; this version reads format {FORMAT_VERSION}"
        )
    for key in CARD_KEYS:
        if key not in data:
            raise InputError(f"{where}: missing key {key!r} (a card has keys {list(CARD_KEYS)})")
    weights = _need(where, data, "weights", dict, "a mapping with file and sha256")
    file = _need(f"{where}: weights", weights, "file", str, "a file name")
    if Path(file).name != file or not file.endswith(".safetensors"):
        raise InputError(f"{where}: weights.file={short(file)} must be a .safetensors file name beside the card")
    sha256 = _need(f"{where}: weights", weights, "sha256", str, "a SHA-256 hex digest")
    env = _need(where, data, "environment", dict, "a mapping")
    name = _need(f"{where}: environment", env, "name", str, f"{ENVIRONMENT!r}")
    if name != ENVIRONMENT:
        raise InputError(f"{where}: environment.name={name!r}, this package plays {ENVIRONMENT!r}")
    version = _need(f"{where}: environment", env, "version", str, f"one of {sorted(LAYOUTS)}")
    if version not in LAYOUTS:
        raise InputError(f"{where}: environment.version={short(version)} is not one of {sorted(LAYOUTS)}")
    beliefs = env.get("belief_features")
    if not isinstance(beliefs, (bool, str)) or beliefs not in LAYOUTS[version]:
        accepted = ", ".join(repr(b) for b in LAYOUTS[version])
        raise InputError(f"{where}: environment.belief_features={short(beliefs)}: {version} has {accepted}")
    size = _need(f"{where}: environment", env, "observation_size", int, "a positive integer")
    expected = LAYOUTS[version][beliefs].size
    if size != expected:
        raise InputError(
            f"{where}: environment.observation_size={size}, but {ENVIRONMENT} {version} observations "
            f"(belief_features={beliefs}) have {expected} numbers"
        )
    actions = _need(f"{where}: environment", env, "action_count", int, "an integer")
    if actions != N_ACTIONS:
        raise InputError(f"{where}: environment.action_count={actions}, but {ENVIRONMENT} has {N_ACTIONS} actions")
    players = _need(where, data, "players", list, "a list of player counts")
    if not players or any(isinstance(p, bool) or p not in PLAYER_COUNTS for p in players):
        raise InputError(
            f"{where}: players={short(players)} must list the player counts it was trained for, of {list(PLAYER_COUNTS)}"
        )
    network = _need(where, data, "network", dict, "a mapping")
    features = network.get("features")
    if features != "flatten":
        raise InputError(f"{where}: network.features={short(features)}; this version builds 'flatten' (MlpPolicy's)")
    policy = _layers(where, network.get("policy"), size, N_ACTIONS, "policy")
    value = _layers(where, network.get("value"), size, 1, "value")
    names = [layer.tensor for layer in policy + value]
    if len(set(names)) != len(names):
        raise InputError(f"{where}: network layers share tensor names {short(names)}")
    for key in ("training", "evaluation"):
        if data[key] is not None and not isinstance(data[key], dict):
            raise InputError(f"{where}: {key} must be a mapping or null, got {short(data[key])}")
    return AgentCard(
        path, file, sha256, version, beliefs, tuple(players), policy, value, data["training"], data["evaluation"]
    )


def read_card(path: str | Path | AgentSource) -> AgentCard:
    """The card a path names, checked against the weights file's header (no tensor data is read)."""
    from safetensors import SafetensorError, safe_open

    source = path if isinstance(path, AgentSource) else locate(path)
    path = card_path(source)
    card = parse_card(read_json(path, "agent card", CARD_BYTES), path)
    weights = card.weights_path
    if source.weights is not None and weights != source.weights:
        raise InputError(
            f"{path.name} names weights {short_text(card.weights_file)}, not {short_text(Path(source.named).name)}: "
            "name the card, or weights that their card names"
        )
    limit = min(WEIGHTS_BYTES, card.weights_bytes() + (1 << 20))
    size = weights.stat().st_size
    if size > limit:
        raise InputError(f"weights {weights} have {size:,} bytes, but the card {path.name} needs about {limit:,}")
    try:
        with safe_open(weights, framework="numpy") as handle:
            found = {}
            for name in handle.keys():  # noqa: SIM118 (safe_open is not a mapping)
                view = handle.get_slice(name)
                found[name] = (view.get_dtype(), list(view.get_shape()))
    except (SafetensorError, OSError, ValueError) as exc:
        raise InputError(
            f"weights {weights} are not a valid safetensors file (truncated?): {short(str(exc))}"
        ) from None
    _check_tensors(card, found)
    return card


def _check_tensors(card: AgentCard, found: dict[str, tuple[str, list[int]]]) -> None:
    """The weights hold exactly the card's tensors, float32, in the card's shapes."""
    where = f"weights {card.weights_path}"
    expected = card.shapes()
    missing = sorted(set(expected) - set(found))
    if missing:
        raise InputError(f"{where}: missing tensors {short(missing)} that the card {card.path.name} names")
    extra = sorted(set(found) - set(expected))
    if extra:
        raise InputError(f"{where}: tensors {short(extra)} that the card {card.path.name} does not name")
    for name, shape in expected.items():
        dtype, actual = found[name]
        if dtype != "F32":
            raise InputError(f"{where}: tensor {short(name)} is {dtype}, accepted: F32")
        if actual != shape:
            raise InputError(f"{where}: tensor {short(name)} has shape {short(actual)}, the card says {shape}")


# ---------------------------------------------------------------------------------------------- the network
class PolicyNetwork:
    """The policy (and value) network of an agent file, in NumPy float32.

    ``logits`` takes one observation or a batch of rows (thousands at once for a batched engine)."""

    def __init__(self, card: AgentCard, tensors: dict[str, np.ndarray]) -> None:
        self.card = card
        self.layout = card.layout
        self.observation_size = self.layout.size
        self._policy = [self._layer(layer, tensors) for layer in card.policy]
        self._value = [self._layer(layer, tensors) for layer in card.value]
        self._probe()

    def _probe(self) -> None:
        """Refuse, at load time, weights that are finite but overflow on in-range observations
        (float32 weights near 3e38 give NaN logits): the lowest, zero and highest observations."""
        low, high = self.layout.bounds()
        rows = np.stack([low, np.zeros_like(low), high]).astype(np.float32)
        with np.errstate(all="ignore"):
            fine = (
                np.isfinite(self._forward(self._policy, rows)).all()
                and np.isfinite(self._forward(self._value, rows)).all()
            )
        if not fine:
            raise InputError(
                f"agent {self.card.path}: its network gives NaN or infinite outputs on in-range observations "
                "(weights too large to compute with in float32)"
            )

    @staticmethod
    def _layer(layer: Dense, tensors: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, str]:
        weight = np.ascontiguousarray(tensors[f"{layer.tensor}.weight"].T, dtype=np.float32)  # (inputs, outputs)
        bias = np.array(tensors[f"{layer.tensor}.bias"], dtype=np.float32)
        return weight, bias, layer.activation

    def _forward(self, layers: list, observations: np.ndarray) -> np.ndarray:
        x = np.asarray(observations, dtype=np.float32)
        single = x.ndim == 1
        if x.ndim not in (1, 2) or x.shape[-1] != self.observation_size:
            raise ValueError(
                f"observations of shape {x.shape}: this policy takes ({self.observation_size},) or "
                f"(batch, {self.observation_size}) ({self.card.version} layout, belief_features={self.card.belief_features})"
            )
        x = x[None] if single else x
        for weight, bias, activation in layers:
            x = x @ weight
            x += bias
            if activation == "tanh":
                np.tanh(x, out=x)
            elif activation == "relu":
                np.maximum(x, 0.0, out=x)
        return x[0] if single else x

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Action logits, (40,) for one observation or (batch, 40) for rows of observations. Logits
        that are not finite are an error naming the agent file: no action is chosen from them."""
        with np.errstate(all="ignore"):
            logits = self._forward(self._policy, observations)
        if not np.isfinite(logits).all():
            raise InputError(
                f"agent {self.card.path}: its network gives NaN or infinite logits for "
                f"{int((~np.isfinite(logits)).any(axis=-1).sum()) if logits.ndim == 2 else 1} observation(s); "
                "no action is chosen from them"
            )
        return logits

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The value network's estimate: a number per observation."""
        return self._forward(self._value, observations)[..., 0]

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's action distribution over the legal actions (float64; as MaskablePPO's)."""
        logits = self.logits(observations).astype(np.float64)
        logits[~np.asarray(masks, dtype=bool)] = -np.inf
        logits -= logits.max(axis=-1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=-1, keepdims=True)


def load_agent(path: str | Path | AgentSource) -> PolicyNetwork:
    """The network of an agent file (card, ``.safetensors`` or run folder), checked throughout."""
    return PolicyNetwork(*_read(path))


def _read(path: str | Path | AgentSource) -> tuple[AgentCard, dict[str, np.ndarray]]:
    """The checked card and tensors: hash, names, dtypes, shapes and finite values."""
    from safetensors import SafetensorError
    from safetensors.numpy import load

    card = read_card(path)
    data = read_bytes(card.weights_path, "weights", min(WEIGHTS_BYTES, card.weights_bytes() + (1 << 20)))
    if hashlib.sha256(data).hexdigest() != card.weights_sha256:
        raise InputError(
            f"weights {card.weights_path} do not match the sha256 in {card.path}: "
            "the file was changed or belongs to another card"
        )
    try:
        tensors = load(data)
    except SafetensorError as exc:
        raise InputError(f"weights {card.weights_path} are not a valid safetensors file: {short(str(exc))}") from None
    dtypes = {np.dtype(np.float32): "F32"}
    _check_tensors(card, {name: (dtypes.get(t.dtype, str(t.dtype)), list(t.shape)) for name, t in tensors.items()})
    bad = sorted(name for name, tensor in tensors.items() if not np.isfinite(tensor).all())
    if bad:
        raise InputError(f"weights {card.weights_path}: tensors {bad} hold NaN or infinite values")
    return card, tensors


# ---------------------------------------------------------------------------------------------- writing
def make_card(
    weights: dict[str, str],
    network: dict[str, Any],
    version: str,
    belief_features: bool | str,
    players: list[int],
    training: dict[str, Any] | None = None,
    evaluation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A card's content (see the module docstring)."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "weights": weights,
        "environment": {
            "name": ENVIRONMENT,
            "version": version,
            "belief_features": belief_features,
            "observation_size": LAYOUTS[version][belief_features].size,
            "action_count": N_ACTIONS,
        },
        "players": sorted(players),
        "network": network,
        "training": training,
        "evaluation": evaluation,
    }


def write_agent(
    prefix: str | Path,
    tensors: dict[str, np.ndarray],
    network: dict[str, Any],
    version: str,
    belief_features: bool | str,
    players: list[int],
    training: dict[str, Any] | None = None,
    evaluation: dict[str, Any] | None = None,
) -> Path:
    """Write ``prefix.safetensors`` and its card ``prefix.json``; returns the card's path. The card
    is checked before anything is written."""
    from safetensors.numpy import save

    prefix = Path(prefix)
    if prefix.suffix in (".json", ".safetensors", ".zip"):
        prefix = prefix.with_suffix("")
    prefix.parent.mkdir(parents=True, exist_ok=True)
    data = save({name: np.ascontiguousarray(t, dtype=np.float32) for name, t in tensors.items()})
    weights = prefix.with_name(prefix.name + ".safetensors")
    digest = {"file": weights.name, "sha256": hashlib.sha256(data).hexdigest()}
    card = make_card(digest, network, version, belief_features, players, training, evaluation)
    path = prefix.with_name(prefix.name + ".json")
    parse_card(card, path)  # never write a card that would not load
    _replace(weights, data)  # the weights first: a card on disk always has its weights
    _replace(path, (json.dumps(card, indent=2, default=_plain) + "\n").encode())
    return path


def _replace(path: Path, data: bytes) -> None:
    """Write a file whole or not at all (readers such as self-play opponents may look at any time),
    never through a link (:func:`ckc_env.files.write_atomic`)."""
    write_atomic(path, data)


def _plain(value: Any) -> Any:
    """JSON for NumPy scalars and tuples in configs and evaluations."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {value!r}")


# ---------------------------------------------------------------------------------------------- torch (train extra)
def dense_layers(net: Any, prefix: str, head: Any, head_name: str) -> list[dict[str, Any]]:
    """The card's layers of a torch MLP (``Linear`` layers, each followed by tanh or ReLU) and its
    linear output ``head``, named by their ``state_dict`` prefixes; a ValueError for anything else.
    Shared by every trainer whose networks export as agent files (stable-baselines3, RLlib)."""
    import torch

    activations = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    out: list[Dense] = []
    modules = list(net)
    for k, module in enumerate(modules):
        if isinstance(module, torch.nn.Linear):
            after = modules[k + 1] if k + 1 < len(modules) else None
            if type(after) not in activations:
                raise ValueError(f"{prefix}.{k} is not followed by tanh or relu: cannot export {net}")
            out.append(Dense(f"{prefix}.{k}", module.in_features, module.out_features, activations[type(after)]))
        elif type(module) not in activations:
            raise ValueError(f"cannot export a {type(module).__name__} layer ({prefix}.{k})")
    out.append(Dense(head_name, head.in_features, head.out_features, "identity"))
    return [layer.to_json() for layer in out]


def sb3_network(policy) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The card's ``network`` and the tensors of a MaskablePPO ``MlpPolicy`` (ValueError for any other build).

    A policy with an asymmetric critic (``training/trainers/sb3/state_critic.py``: its value network reads the
    hidden state beside the observation) exports its policy and its observation critic, under the
    plain policy's names: an agent file reads the observation alone."""
    from stable_baselines3.common.torch_layers import FlattenExtractor

    if not isinstance(policy.features_extractor, FlattenExtractor):
        raise ValueError(f"only MlpPolicy's flatten features export, not {type(policy.features_extractor).__name__}")
    size = policy.features_extractor.features_dim
    tensors = {name: t.detach().cpu().numpy() for name, t in policy.state_dict().items()}
    value_net, value_head = policy.mlp_extractor.value_net, policy.value_net
    if hasattr(policy, "observation_value_net"):  # the state critic stays behind
        size = policy.actor_inputs
        value_net, value_head = policy.observation_value_net, policy.observation_value
        renamed = {"observation_value_net.": "mlp_extractor.value_net.", "observation_value.": "value_net."}
        tensors = {
            next((name.replace(old, new, 1) for old, new in renamed.items() if name.startswith(old)), name): tensor
            for name, tensor in tensors.items()
            if not name.startswith(("mlp_extractor.value_net.", "value_net."))
        }

    network = {
        "features": "flatten",
        "policy": dense_layers(
            policy.mlp_extractor.policy_net, "mlp_extractor.policy_net", policy.action_net, "action_net"
        ),
        "value": dense_layers(value_net, "mlp_extractor.value_net", value_head, "value_net"),
    }
    if network["policy"][0]["inputs"] != size:
        raise ValueError(f"the policy takes {network['policy'][0]['inputs']} features from {size} observations")
    return network, tensors


def _sb3_parts(model) -> tuple[str, bool | str, dict[str, Any], dict[str, np.ndarray]]:
    """Environment version, belief_features, card network and tensors of a MaskablePPO model."""
    from ..observation import layout_by_size

    shape = getattr(model.observation_space, "shape", None)
    if shape is not None and len(shape) == 1 and hasattr(model.policy, "actor_inputs"):
        shape = (model.policy.actor_inputs,)  # the policy's part of an observation with the critic's state
    found = layout_by_size(shape[0]) if shape is not None and len(shape) == 1 else None
    if found is None or getattr(model.action_space, "n", None) != N_ACTIONS:
        sizes = sorted(layout.size for layouts in LAYOUTS.values() for layout in layouts.values())
        raise ValueError(
            f"a model with observations {shape} and {model.action_space} is not a {ENVIRONMENT} policy "
            f"(observation sizes {sizes}, {N_ACTIONS} actions)"
        )
    version, beliefs, _ = found
    return (version, beliefs, *sb3_network(model.policy))


def save_sb3(
    model,
    prefix: str | Path,
    players: list[int],
    training: dict[str, Any] | None = None,
    evaluation: dict[str, Any] | None = None,
) -> Path:
    """Write a MaskablePPO model's policy in the safe format (``prefix.json`` + ``prefix.safetensors``)."""
    version, beliefs, network, tensors = _sb3_parts(model)
    training = {"algorithm": type(model).__name__, "timesteps": int(model.num_timesteps), **(training or {})}
    return write_agent(prefix, tensors, network, version, beliefs, players, training, evaluation)


def sb3_policy_network(model, source: str | Path) -> PolicyNetwork:
    """A loaded MaskablePPO model's policy as the NumPy network its export would load, built in memory."""
    version, beliefs, network, tensors = _sb3_parts(model)
    source = Path(source)
    weights = {"file": f"{source.stem}.safetensors", "sha256": ""}  # in memory only: no file to check
    # a zip does not say which counts it was trained for: any count plays
    card = make_card(weights, network, version, beliefs, players=list(PLAYER_COUNTS))
    return PolicyNetwork(parse_card(card, source), tensors)


def torch_policy(path: str | Path):
    """The agent file rebuilt as MaskablePPO's own policy module (torch; eval mode), for exactness
    checks and for training from a safe file."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    card, tensors = _read(path)
    activations = {layer.activation for layer in card.policy[:-1] + card.value[:-1]}
    if len(activations) > 1:
        raise ValueError(f"{card.path}: MlpPolicy uses one activation for all layers, the card has {activations}")
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activations.pop() if activations else "tanh"]
    low, high = card.layout.bounds()
    policy = MaskableActorCriticPolicy(
        spaces.Box(low, high, dtype=np.float32),
        spaces.Discrete(N_ACTIONS),
        lr_schedule=lambda _: 0.0,
        net_arch={
            "pi": [layer.outputs for layer in card.policy[:-1]],
            "vf": [layer.outputs for layer in card.value[:-1]],
        },
        activation_fn=activation,
    )
    policy.load_state_dict({name: torch.from_numpy(np.array(t)) for name, t in tensors.items()}, strict=True)
    policy.set_training_mode(False)
    return policy
