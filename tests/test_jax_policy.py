"""The JAX policy (ckc_env/jax/policy.py) against the NumPy network it was loaded from: every shipped
agent file's logits on positions of the NumPy batched engine, in the card's layout, within 1e-4 (max
abs over the legal actions; -inf exactly at the illegal ones), the same argmax except counted
near-ties, and BatchPolicyAgent's own decisions, greedy and sampled from its per-(game, seat)
SplitMix64 streams, taken again."""

import itertools
from functools import cache
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from ckc_env import batch  # noqa: E402
from ckc_env.batch.agents import decide, make_batch_agent, seat_keys  # noqa: E402
from ckc_env.config import GameConfig  # noqa: E402
from ckc_env.engine.chance import GOLDEN, mix64  # noqa: E402
from ckc_env.files import InputError  # noqa: E402
from ckc_env.jax import policy  # noqa: E402
from ckc_env.jax.state import join_keys, split_keys  # noqa: E402
from ckc_env.layout import Layout  # noqa: E402
from ckc_env.observation import LAYOUTS  # noqa: E402
from ckc_env.players import agent_file  # noqa: E402
from ckc_env.players.batch_policy import BatchPolicyAgent  # noqa: E402
from ckc_env.players.policy import load_policy  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CARDS = sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "checkpoints").glob("*/*.json") if p.stem.endswith("_model")
)
STRONGEST = ROOT / "checkpoints" / "ppo_all_counts_mixed_34p"
TOLERANCE = 1e-4
"""Max abs difference of a legal logit: both sum float32 products over up to 964 inputs and 256-wide
layers, in the order their kernels take (seen: a few 1e-6)."""

logits_jit = jax.jit(policy.logits)
fractions = jax.jit(jax.vmap(policy.fraction))
act_jit = jax.jit(policy.act, static_argnames="deterministic")


@cache
def positions(layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Observations (in ``layout``) and legal masks of the acting seat of every decision of 48
    seeded batched games of 3, 4 and 5 players (both variants), played by random, eager and bayes_v1."""
    config = GameConfig(num_players=5, stasi=True, cafe_adler=True)
    state = batch.init(config, seeds=range(48), num_players=[3, 4, 5] * 16)
    lineup = [make_batch_agent(k, seed=s) for s, k in enumerate(["bayes_v1", "random", "eager", "random", "bayes_v1"])]
    rows, masks = [], []
    for _ in range(40):
        live = state.pending_kind >= 0
        rows.append(batch.observe(state, layout=layout)[live])
        masks.append(batch.legal_action_mask(state)[live].astype(bool))
        batch.step(state, decide(state, lineup), autoreset=True)
    return np.concatenate(rows), np.concatenate(masks)


def near_ties(expected: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Rows whose two best legal NumPy logits are within the tolerance (either may win)."""
    legal = np.where(masks, expected.astype(np.float64), -np.inf)
    top2 = -np.sort(-legal, axis=1)[:, :2]
    return (masks.sum(1) > 1) & (top2[:, 0] - top2[:, 1] <= TOLERANCE)


def compare(network: agent_file.PolicyNetwork, params: policy.Network, rows: np.ndarray, masks: np.ndarray) -> int:
    """Logits within the tolerance and the same greedy action except near-ties; returns the near-ties."""
    expected = network.logits(rows)
    got = np.asarray(logits_jit(params, rows, masks))
    assert got.dtype == np.float32 and got.shape == (len(rows), 40)
    assert np.isneginf(got[~masks]).all() and np.isfinite(got[masks]).all()
    assert np.abs(got[masks] - expected[masks]).max() < TOLERANCE
    chosen = np.asarray(act_jit(params, rows, masks))
    reference = np.argmax(np.where(masks, expected.astype(np.float64), -np.inf), axis=1)
    tied = near_ties(expected, masks)
    assert np.array_equal(chosen[~tied], reference[~tied])
    return int((chosen != reference).sum())


@pytest.mark.slow
@pytest.mark.parametrize("card", CARDS)
def test_every_shipped_agent_gives_the_numpy_logits(card):
    network = load_policy(ROOT / card)
    jax_policy = policy.load(ROOT / card)
    assert jax_policy.layout is network.layout and jax_policy.observation_size == network.layout.size
    rows, masks = positions(network.layout)
    assert len(rows) > 1500 and {845, 850, 964} >= {rows.shape[1]}
    assert compare(network, jax_policy.params, rows, masks) <= 2
    values = np.asarray(jax.jit(policy.values)(jax_policy.params, rows[:200]))
    assert np.abs(values - network.values(rows[:200])).max() < TOLERANCE


@pytest.mark.slow
def test_other_architectures_and_layouts(tmp_path):
    """ReLU and tanh layers of unequal widths, on the 736 and 1078 layouts the shipped files do not
    use, with large weights so choices matter: random tensors written as an agent file."""
    rng = np.random.default_rng(0)
    for beliefs, activation in ((False, "relu"), ("second_order", "tanh")):
        layout = LAYOUTS["v2"][beliefs]
        widths = [layout.size, 64, 32, 40]
        layers = [
            {"tensor": f"pi.{k}", "inputs": a, "outputs": b, "activation": activation if k < 2 else "identity"}
            for k, (a, b) in enumerate(itertools.pairwise(widths))
        ]
        value = [{"tensor": "vf", "inputs": layout.size, "outputs": 1, "activation": "identity"}]
        tensors = {}
        for layer in layers + value:
            scale = 3 / np.sqrt(layer["inputs"])
            tensors[f"{layer['tensor']}.weight"] = rng.normal(0, scale, (layer["outputs"], layer["inputs"]))
            tensors[f"{layer['tensor']}.bias"] = rng.normal(0, 0.1, layer["outputs"])
        network = {"features": "flatten", "policy": layers, "value": value}
        card = agent_file.write_agent(tmp_path / str(beliefs), tensors, network, "v2", beliefs, [3, 4, 5])
        jax_policy = policy.load(card)
        assert [layer.activation for layer in jax_policy.params.policy] == [activation, activation, "identity"]
        rows, masks = positions(layout)[0][:400], positions(layout)[1][:400]
        assert rows.shape[1] in (736, 1078)
        compare(load_policy(card), jax_policy.params, rows, masks)


def test_the_torch_policy_gives_the_same_logits():
    """MaskablePPO's own module rebuilt from the strongest card (train extra) agrees too."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    module = agent_file.torch_policy(STRONGEST)
    jax_policy = policy.load(STRONGEST)
    rows, masks = positions(jax_policy.layout)
    with torch.no_grad():
        latent = module.mlp_extractor.forward_actor(module.extract_features(torch.as_tensor(rows[:500])))
        expected = module.action_net(latent).numpy()
    got = np.asarray(logits_jit(jax_policy.params, rows[:500], masks[:500]))
    assert np.abs(got[masks[:500]] - expected[masks[:500]]).max() < TOLERANCE


class Tap:
    """The player's network, recording each batch of observations it is given."""

    def __init__(self, network: agent_file.PolicyNetwork) -> None:
        self.network, self.seen = network, []

    def logits(self, observations: np.ndarray) -> np.ndarray:
        self.seen.append(observations)
        return self.network.logits(observations)


def padded(*arrays: np.ndarray, size: int) -> list[np.ndarray]:
    """Rows padded with zeros to ``size`` (one compiled shape for every step; a zero mask row is a
    finished game's)."""
    return [np.concatenate([a, np.zeros((size - len(a), *a.shape[1:]), a.dtype)]) for a in arrays]


def play(player: BatchPolicyAgent, games: int, steps: int):
    """Self-play of one batched checkpoint player in mixed-count games; yields, per step, the
    observations it read, the legal masks, its actions and the (key, counter) of each acting seat."""
    state = batch.init(GameConfig(num_players=5), seeds=range(100, 100 + games), num_players=[3, 4, 5] * (games // 3))
    player.start(np.arange(games), seat_keys(state.key))
    player.network = Tap(player.network)
    for _ in range(steps):
        live = np.flatnonzero(state.pending_kind >= 0)
        if not len(live):
            break
        seats = state.pending_seat[live].astype(np.int64)
        keys, counters = player.keys[live, seats].copy(), player.counters[live, seats].copy()
        masks = batch.legal_action_mask(state)[live].astype(bool)
        chosen = player.act(state, live)
        yield player.network.seen[-1], masks, chosen, keys, counters
        actions = np.zeros(state.batch_size, dtype=np.int64)
        actions[live] = chosen
        batch.step(state, actions)


def test_greedy_decisions_are_the_batched_players():
    """BatchPolicyAgent (the strongest, reading the players' posterior as the game goes) decides 30
    games; the JAX act on the observations it read takes its action at every decision."""
    jax_policy = policy.load(STRONGEST)
    decided = mismatched = 0
    for rows, masks, chosen, _, _ in play(BatchPolicyAgent(str(STRONGEST)), 30, 60):
        got = np.asarray(act_jit(jax_policy.params, *padded(rows, masks, size=30)))[: len(rows)]
        tied = near_ties(load_policy(STRONGEST).logits(rows), masks)
        assert np.array_equal(got[~tied], chosen[~tied])
        decided += len(rows)
        mismatched += int((got != chosen).sum())
    assert decided > 800 and mismatched <= 2


@pytest.mark.slow
def test_sampled_decisions_draw_the_batched_players_words():
    """Sampling, the JAX act draws word ``counter`` of each (game, seat) stream as BatchAgent.draw
    does and takes the same action, except where that word's fraction lies within 1e-5 of a boundary
    of the float64 cumulative distribution (counted; none expected)."""
    jax_policy = policy.load(STRONGEST)
    decided = near = 0
    for rows, masks, chosen, keys, counters in play(BatchPolicyAgent(str(STRONGEST), deterministic=False), 30, 60):
        stream = split_keys(keys), counters.astype(np.uint32)
        got = act_jit(jax_policy.params, *padded(rows, masks, *stream, size=30), deterministic=False)
        got = np.asarray(got)[: len(rows)]
        assert masks[np.arange(len(rows)), got].all()
        words = mix64(keys + counters * np.uint64(GOLDEN))
        exact = (words >> np.uint64(11)).astype(np.float64) / (1 << 53)
        drawn = np.asarray(fractions(*padded(*stream, size=30)))[: len(rows)]
        assert np.abs(drawn - exact).max() < 2.0**-23
        logits = np.where(masks, load_policy(STRONGEST).logits(rows).astype(np.float64), -np.inf)
        running = np.cumsum(np.exp(logits - logits.max(1, keepdims=True)), axis=1)
        boundary = np.abs(running / running[:, -1:] - exact[:, None]).min(1) < 1e-5
        assert np.array_equal(got[~boundary], chosen[~boundary])
        decided += len(rows)
        near += int(boundary.sum())
    assert decided > 800 and near <= 2


@pytest.mark.slow
def test_jit_vmap_and_the_player_object():
    jax_policy = policy.load(STRONGEST)
    assert policy.load(STRONGEST / "best_model.json") is jax_policy  # one object per file version
    twin = policy.AgentPolicy(jax_policy.name, jax_policy.card, jax_policy.params)
    assert twin != jax_policy and len({jax_policy, twin}) == 2  # hashable by identity (a static argument)
    assert jax_policy.players == (3, 4, 5) and jax_policy.version == "v2" and jax_policy.belief_features == "players"
    leaves = jax.tree_util.tree_leaves(jax_policy.params)
    assert len(leaves) == 12 and all(leaf.dtype == np.float32 for leaf in leaves)
    rows, masks = positions(jax_policy.layout)
    rows, masks = rows[:64], masks[:64]
    keys = split_keys(mix64(np.arange(64, dtype=np.uint64)))
    counters = np.arange(64, dtype=np.uint32)
    batched = act_jit(jax_policy.params, rows, masks, keys, counters, deterministic=False)
    one = jax.jit(jax.vmap(lambda o, m, k, c: jax_policy.act(o, m, k, c, deterministic=False)))
    assert np.array_equal(np.asarray(one(rows, masks, keys, counters)), np.asarray(batched))
    assert np.array_equal(np.asarray(jax.vmap(jax_policy.act)(rows, masks)), np.asarray(jax_policy.act(rows, masks)))
    over = np.zeros((2, 40), bool)  # a finished game: no legal action, action 0 as NumPy's argmax
    assert np.asarray(
        act_jit(jax_policy.params, rows[:2], over, keys[:2], counters[:2], deterministic=False)
    ).tolist() == [0, 0]
    game_keys = np.array([0, 1, 2**63 + 12345], dtype=np.uint64)
    assert np.array_equal(join_keys(np.asarray(policy.seat_keys(split_keys(game_keys)))), seat_keys(game_keys))


def test_only_safe_agent_files_load():
    """A zip (pickles inside) is refused by name before anything of it is read."""
    with pytest.raises(InputError, match="not a safe agent file"):
        policy.load(ROOT / "checkpoints" / "ppo_5p_distilled" / "best_model.zip")
