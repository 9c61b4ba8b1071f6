"""Agent files (ckc_env/players/agent_file.py): the shipped agent's safe files give the probabilities of the
zips they were exported from, they play with NumPy alone, and a truncated or tampered file or card
gets a ValueError that names the problem."""

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load, save

from ckc_env import players
from ckc_env.agents import Agent, make_agent
from ckc_env.envs.aec import raw_env
from ckc_env.evaluation.tournament import play_game
from ckc_env.observation import OBSERVATION, OBSERVATION_V0_WITH_BELIEFS, encode_view
from ckc_env.players import agent_file
from ckc_env.players.policy import PolicyAgent

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "ppo_5p_distilled"


class Recorder(Agent):
    """Plays as ``inner`` and records each decision's observation in ``layout`` and its action mask."""

    def __init__(self, inner: Agent, layout, rows: list, masks: list) -> None:
        super().__init__()
        self.inner, self.layout, self.rows, self.masks = inner, layout, rows, masks

    def reset(self, seat, config) -> None:
        self.inner.reset(seat, config)

    def act(self, view, observation) -> int:
        self.rows.append(encode_view(view, self.layout))
        self.masks.append(observation["action_mask"].astype(bool))
        return self.inner.act(view, observation)


def recorded(layout, games: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations of every seat's decisions in seeded 3, 4 and 5-player games (random, eager and
    bayes_v1 players, both variants): rows, masks, and the player count of each row."""
    rows, masks, counts = [], [], []
    for n in (3, 4, 5):
        env = raw_env(num_players=n, stasi=True, cafe_adler=True)
        for g in range(games):
            kinds = ["random", "eager", "bayes_v1", "random", "bayes_v1"][:n]
            before = len(rows)
            agents = [Recorder(make_agent(k, seed=10 * g + s), layout, rows, masks) for s, k in enumerate(kinds)]
            play_game(env.config, agents, seed=1000 * n + g)
            counts += [n] * (len(rows) - before)
    return np.asarray(rows, np.float32), np.asarray(masks), np.asarray(counts)


def sb3_probabilities(policy, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """MaskablePPO's own action distribution (its documented get_distribution)."""
    import torch

    with torch.no_grad():
        return policy.get_distribution(torch.as_tensor(rows), action_masks=masks).distribution.probs.numpy()


# ---------------------------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("name", ["best_model", "final_model"])
def test_the_shipped_safe_files_give_the_probabilities_of_their_zips(name):
    """Torch path (the SB3 policy rebuilt from the card): exactly equal. NumPy path: within 1e-5
    (float32 sums over 845 inputs and 256-wide layers, in whatever order the machine's BLAS
    kernel takes: 1.5e-6 apart on some CPUs), and the same greedy action on every recorded
    decision of 3, 4 and 5-player games."""
    pytest.importorskip("sb3_contrib", reason="the zips load with the train extra")
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(SHIPPED / f"{name}.zip", device="cpu")  # the project's own file
    rows, masks, counts = recorded(OBSERVATION_V0_WITH_BELIEFS)
    assert {3, 4, 5} <= set(counts) and len(rows) > 300
    expected = sb3_probabilities(model.policy, rows, masks)
    rebuilt = agent_file.torch_policy(SHIPPED / f"{name}.json")
    assert np.array_equal(sb3_probabilities(rebuilt, rows, masks), expected)
    network = agent_file.load_agent(SHIPPED / f"{name}.json")
    probabilities = network.probabilities(rows, masks)
    assert np.abs(probabilities - expected).max() <= 1e-5
    assert np.array_equal(probabilities.argmax(axis=1), expected.argmax(axis=1))
    assert (probabilities[~masks] == 0).all()


def test_other_architectures_round_trip(tmp_path):
    """ReLU, unequal policy and value networks, the v1 layout: the card rebuilds them all."""
    pytest.importorskip("sb3_contrib", reason="models are made with the train extra")
    import torch
    from test_policy import untrained

    model = untrained(OBSERVATION.size, net_arch={"pi": [64, 32], "vf": [16]}, activation_fn=torch.nn.ReLU)
    with torch.no_grad():
        model.policy.action_net.weight.mul_(300)  # an untrained head is nearly uniform: make choices matter
    card = agent_file.save_sb3(model, tmp_path / "relu", players=[3, 4])
    rows, masks, _ = recorded(OBSERVATION, games=2)
    expected = sb3_probabilities(model.policy, rows, masks)
    assert np.array_equal(sb3_probabilities(agent_file.torch_policy(card), rows, masks), expected)
    network = agent_file.load_agent(card)
    assert np.abs(network.probabilities(rows, masks) - expected).max() <= 1e-6
    assert np.array_equal(network.probabilities(rows, masks).argmax(axis=1), expected.argmax(axis=1))
    with torch.no_grad():
        values = model.policy.predict_values(torch.as_tensor(rows)).numpy()[:, 0]
    assert np.abs(network.values(rows) - values).max() <= 1e-5
    layers = json.loads(card.read_text())["network"]
    assert [(x["outputs"], x["activation"]) for x in layers["policy"]] == [(64, "relu"), (32, "relu"), (40, "identity")]
    assert [(x["outputs"], x["activation"]) for x in layers["value"]] == [(16, "relu"), (1, "identity")]


def test_a_batch_is_its_rows():
    network = agent_file.load_agent(SHIPPED)
    rows, _, _ = recorded(OBSERVATION_V0_WITH_BELIEFS, games=1)
    batch = network.logits(rows)
    assert batch.shape == (len(rows), 40) and batch.dtype == np.float32
    assert np.allclose(batch, np.stack([network.logits(row) for row in rows]), atol=1e-5)
    with pytest.raises(ValueError, match=r"observations of shape \(731,\): this policy takes \(845,\)"):
        network.logits(np.zeros(731, np.float32))


@pytest.mark.slow
def test_the_shipped_agent_plays_with_numpy_alone():
    """Evaluating a safe agent needs no torch or stable-baselines3: a tournament with them blocked."""
    script = """
import sys

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"torch", "stable_baselines3", "sb3_contrib", "cloudpickle"}:
            raise ImportError(f"{name} is not installed")

sys.meta_path.insert(0, Blocked())
from ckc_env.evaluation.tournament import run_tournament

result = run_tournament(["checkpoints/ppo_5p_distilled", "bayes_v1", "bayes_v1", "bayes_v1", "bayes_v1"], 20, seed=1, workers=1)
print(result.games, sorted(m for m in sys.modules if m.split(".")[0] in {"torch", "sb3_contrib"}))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "20 []"  # one balanced design of five seats


# ---------------------------------------------------------------------------------------------- tampering
def copy_shipped(tmp_path: Path) -> Path:
    for suffix in (".json", ".safetensors"):
        shutil.copy(SHIPPED / f"best_model{suffix}", tmp_path / f"best_model{suffix}")
    return tmp_path / "best_model.json"


def edit_card(path: Path, change) -> None:
    card = json.loads(path.read_text())
    change(card)
    path.write_text(json.dumps(card))


def rewrite_weights(path: Path, change) -> None:
    """New tensors, with the card's hash updated (a consistent pair that is still wrong)."""
    weights = path.with_suffix(".safetensors")
    tensors = dict(load(weights.read_bytes()))
    change(tensors)
    data = save(tensors)
    weights.write_bytes(data)
    edit_card(path, lambda c: c["weights"].update(sha256=hashlib.sha256(data).hexdigest()))


def _set(key_path: str, value):
    def change(card):
        *parents, last = key_path.split(".")
        target = card
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return change


def _truncate(path: Path) -> None:
    weights = path.with_suffix(".safetensors")
    weights.write_bytes(weights.read_bytes()[:-1000])


def _header_garbage(path: Path) -> None:
    weights = path.with_suffix(".safetensors")
    weights.write_bytes(b"\xff" * 8 + weights.read_bytes()[8:])


def _flip_a_weight(path: Path) -> None:
    weights = path.with_suffix(".safetensors")
    data = bytearray(weights.read_bytes())
    data[-5] ^= 0xFF
    weights.write_bytes(bytes(data))


TAMPERED = {
    # name: (change of the copied card / weights, message, detected from the card and header alone)
    "truncated weights": (_truncate, r"are not a valid safetensors file \(truncated\?\)", True),
    "garbage header": (_header_garbage, r"are not a valid safetensors file", True),
    "wrong shape": (
        lambda p: rewrite_weights(p, lambda t: t.update({"action_net.weight": t["action_net.weight"][:39]})),
        r"tensor 'action_net.weight' has shape \[39, 256\], the card says \[40, 256\]",
        True,
    ),
    "missing tensor": (
        lambda p: rewrite_weights(p, lambda t: t.pop("value_net.bias")),
        r"missing tensors \['value_net.bias'\]",
        True,
    ),
    "extra tensor": (
        lambda p: rewrite_weights(p, lambda t: t.update(extra=np.zeros(3, np.float32))),
        r"tensors \['extra'\] that the card best_model.json does not name",
        True,
    ),
    "float64 tensor": (
        lambda p: rewrite_weights(p, lambda t: t.update({"value_net.bias": t["value_net.bias"].astype(np.float64)})),
        r"tensor 'value_net.bias' is F64, accepted: F32",
        True,
    ),
    "NaN weights": (
        lambda p: rewrite_weights(p, lambda t: t.update({"action_net.bias": np.full(40, np.nan, np.float32)})),
        r"tensors \['action_net.bias'\] hold NaN or infinite values",
        False,
    ),
    "weights changed behind the card": (_flip_a_weight, r"do not match the sha256 in .*best_model.json", False),
    "weights file missing": (
        lambda p: p.with_suffix(".safetensors").unlink(),
        r"names weights best_model.safetensors, which is not beside it",
        True,
    ),
    "weights outside the folder": (
        lambda p: edit_card(p, _set("weights.file", "../best_model.safetensors")),
        r"weights.file='../best_model.safetensors' must be a .safetensors file name beside the card",
        True,
    ),
    "card not JSON": (lambda p: p.write_text("{'format': "), r"is not valid JSON", True),
    "card not an object": (lambda p: p.write_text("[1, 2]"), r"a card is a JSON object with keys", True),
    "not an agent card": (
        lambda p: edit_card(p, _set("format", "sb3")),
        r"format='sb3', expected 'ckc-env-agent'",
        True,
    ),
    "newer format": (lambda p: edit_card(p, _set("format_version", 2)), r"format_version=2; this version reads", True),
    "missing key": (lambda p: edit_card(p, lambda c: c.pop("network")), r"missing key 'network'", True),
    "another environment": (
        lambda p: edit_card(p, _set("environment.name", "connect_four")),
        r"environment.name='connect_four', this package plays 'checkpoint_charlie'",
        True,
    ),
    "unknown environment version": (
        lambda p: edit_card(p, _set("environment.version", "v9")),
        r"environment.version='v9' is not one of \['v0', 'v1', 'v2'\]",
        True,
    ),
    "layout of another version": (
        lambda p: edit_card(p, _set("environment.version", "v1")),
        r"observation_size=845, but checkpoint_charlie v1 observations \(belief_features=True\) have 850 numbers",
        True,
    ),
    "layout of another size": (
        lambda p: edit_card(p, _set("environment.observation_size", 850)),
        r"observation_size=850, but checkpoint_charlie v0 observations \(belief_features=True\) have 845",
        True,
    ),
    "action count not 40": (
        lambda p: edit_card(p, _set("environment.action_count", 39)),
        r"action_count=39, but checkpoint_charlie has 40 actions",
        True,
    ),
    "layers that do not chain": (
        lambda p: edit_card(p, _set("network.policy.1.inputs", 128)),
        r"network.policy\[1\] takes 128 inputs with 256 outputs, but its input has 256 numbers",
        True,
    ),
    "policy not ending in 40 logits": (
        lambda p: edit_card(p, _set("network.policy.2.outputs", 39)),
        r"network.policy ends with 39 outputs, it must give 40",
        True,
    ),
    "unknown activation": (
        lambda p: edit_card(p, _set("network.value.0.activation", "gelu")),
        r"activation 'gelu' is not one of \['tanh', 'relu', 'identity'\]",
        True,
    ),
    "unknown features": (
        lambda p: edit_card(p, _set("network.features", "cnn")),
        r"network.features='cnn'; this version builds 'flatten'",
        True,
    ),
    "player count": (lambda p: edit_card(p, _set("players", [6])), r"players=\[6\] must list the player counts", True),
    "size as text": (
        lambda p: edit_card(p, _set("network.policy.0.outputs", "256")),
        r"network.policy\[0\]: outputs='256' is not a positive integer",
        True,
    ),
}


@pytest.mark.parametrize("case", list(TAMPERED), ids=list(TAMPERED))
def test_a_tampered_agent_file_gets_a_named_error(tmp_path, case):
    change, message, from_header = TAMPERED[case]
    card = copy_shipped(tmp_path)
    change(card)
    for path in (card, card.with_suffix(".safetensors"), tmp_path):
        if not path.exists():  # the weights file itself, when removed: "no checkpoint at"
            continue
        with pytest.raises(ValueError, match=message):
            PolicyAgent(path)
    with pytest.raises(ValueError, match=message):  # a spec is checked as it will be loaded
        players.validate(str(card))
    if from_header:  # read_card checks the card against the safetensors header alone
        with pytest.raises(ValueError, match=message):
            agent_file.read_card(card)


def test_a_copy_of_the_shipped_files_loads_untouched(tmp_path):
    """The tampering cases start from a good pair."""
    card = copy_shipped(tmp_path)
    agent = PolicyAgent(tmp_path)
    assert agent.layout is OBSERVATION_V0_WITH_BELIEFS
    assert agent_file.read_card(card).players == (5,)


def test_a_card_is_never_written_if_it_would_not_load(tmp_path):
    network = json.loads((SHIPPED / "best_model.json").read_text())["network"]
    tensors = load((SHIPPED / "best_model.safetensors").read_bytes())
    with pytest.raises(ValueError, match=r"players=\[7\]"):
        agent_file.write_agent(tmp_path / "agent", tensors, network, "v0", True, players=[7])
    assert not list(tmp_path.iterdir())


def test_an_exported_agent_is_found_by_its_name_without_json(tmp_path, monkeypatch):
    """``ckc-export my_agent.zip`` writes my_agent.json and my_agent.safetensors: ``my_agent`` and
    ``./my_agent`` name the card; a name with only other files beside it says what to type."""
    from ckc_env.players import specs

    copy_shipped(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ("best_model", "./best_model", str(tmp_path / "best_model")):
        assert specs.parse(name) == specs.Spec(name + ".json", "checkpoint")
        assert PolicyAgent(specs.parse(name).name).layout is OBSERVATION_V0_WITH_BELIEFS
    (tmp_path / "best_model.json").unlink()
    with pytest.raises(ValueError, match=r"unknown player 'best_model' \(did you mean 'best_model.safetensors'\?\)"):
        specs.parse("best_model")
