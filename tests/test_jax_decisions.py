"""The one-decision-per-step loop (vector.loop: decision): each seat's advantages along its own
decisions, the table's view of the games, and a self-play run whose agent file plays on every engine."""

import json

import numpy as np
import pytest
import yaml

pytest.importorskip("jax")
pytest.importorskip("optax")

import jax
import jax.numpy as jnp

from ckc_env.training.config import parse_config
from ckc_env.training.trainers.jax.decisions import Decided, seat_advantages

SELF_PLAY = {
    "seed": 3,
    "engine": "jax",
    "total_timesteps": 256,
    "game": {"num_players": [4, 5]},
    "reward": "margin",
    "belief_features": True,
    "opponents": ["self"],
    "self_play": {"shared": True},
    "ppo": {"n_steps": 8, "batch_size": 32, "n_epochs": 2, "learning_rate": 0.001, "ent_coef": 0.01},
    "policy": {"net_arch": [32, 32]},
    "eval": {"every": 128, "games": 16, "opponents": {"vs_random": ["random"]}},
    "vector": {"num_envs": 16, "loop": "decision"},
}


DROP = object()
"""A key left out of the config."""


def reference_advantages(reward, done, seat, learner, value, last, gamma, lam):
    """Each seat's GAE written out: walk each game forward, cut each seat's decisions into episodes,
    pay a decision what its seat earned until its next decision (or the game's end), then GAE."""
    steps, size = seat.shape
    advantage = np.zeros((steps, size))
    for b in range(size):
        start = 0
        for t in range(steps + 1):
            if t < steps and not done[t, b]:
                continue
            end = min(t, steps - 1)  # the episode's steps: start..end
            finished = t < steps
            for s in range(5):
                mine = [u for u in range(start, end + 1) if learner[u, b] and seat[u, b] == s]
                pays = []
                for i, u in enumerate(mine):
                    upto = mine[i + 1] if i + 1 < len(mine) else end + 1
                    pays.append(sum(reward[w, b, s] for w in range(u, upto)))
                gae = 0.0
                for i in reversed(range(len(mine))):
                    last_value = 0.0 if finished else last[b, s]  # the game's end, or the rollout's
                    next_value = value[mine[i + 1], b] if i + 1 < len(mine) else last_value
                    delta = pays[i] + gamma * next_value - value[mine[i], b]
                    gae = delta + gamma * lam * gae
                    advantage[mine[i], b] = gae
            start = t + 1
    return advantage


def test_each_seat_s_advantages_run_along_its_own_decisions():
    rng = np.random.default_rng(0)
    steps, size = 40, 6
    seat = rng.integers(0, 5, (steps, size))
    learner = rng.random((steps, size)) < 0.6
    done = rng.random((steps, size)) < 0.08
    reward = np.where(rng.random((steps, size, 5)) < 0.3, rng.normal(size=(steps, size, 5)), 0.0)
    value = rng.normal(size=(steps, size))
    last = rng.normal(size=(size, 5))
    batch = Decided(
        None, None, None, None, jnp.asarray(value, jnp.float32), jnp.asarray(learner), jnp.asarray(seat),
        jnp.asarray(reward, jnp.float32), jnp.asarray(done),
    )  # fmt: skip
    advantage, target, paid = seat_advantages(batch, jnp.asarray(last, jnp.float32), 0.9, 0.8)
    expected = reference_advantages(reward, done, seat, learner, value, last, 0.9, 0.8)
    np.testing.assert_allclose(np.asarray(advantage), expected, atol=1e-4)
    np.testing.assert_allclose(np.asarray(target)[learner], (expected + value)[learner], atol=1e-4)
    assert np.all(np.asarray(paid)[~learner] == 0)


def test_only_the_seats_still_to_decide_at_the_rollout_s_end_read_their_bootstrap_value():
    """The rollout's end values are observed only where ``bootstrapped`` says: the advantages are
    the same with every other seat's value zeroed, and different when a bootstrapped one is."""
    from ckc_env.training.trainers.jax.decisions import bootstrapped

    rng = np.random.default_rng(7)
    steps, size = 12, 16
    learner = rng.random((steps, size)) < 0.4
    batch = Decided(
        None, None, None, None,
        jnp.asarray(rng.normal(size=(steps, size)), jnp.float32),
        jnp.asarray(learner),
        jnp.asarray(rng.integers(0, 4, (steps, size)), jnp.int32),
        jnp.asarray(rng.normal(size=(steps, size, 5)), jnp.float32),
        jnp.asarray(rng.random((steps, size)) < 0.1),
    )  # fmt: skip
    last = jnp.asarray(rng.normal(size=(size, 5)), jnp.float32)
    read = np.asarray(bootstrapped(batch))
    assert 0 < read.sum() < read.size
    full = seat_advantages(batch, last, 0.99, 0.95)[0]
    kept = seat_advantages(batch, jnp.where(read, last, 0.0), 0.99, 0.95)[0]
    np.testing.assert_array_equal(np.asarray(full), np.asarray(kept))
    b, s = np.argwhere(read)[0]
    changed = seat_advantages(batch, last.at[b, s].add(1.0), 0.99, 0.95)[0]
    assert not np.array_equal(np.asarray(full), np.asarray(changed))


def test_a_minibatch_s_gradient_taken_in_parts_is_the_whole_one_s():
    """A weighted minibatch's loss summed over parts of its rows, each with the whole minibatch's
    normalisers, has the whole one's gradient and figures: the padding's parts can be skipped."""
    from ckc_env.engine.actions import N_ACTIONS
    from ckc_env.training.trainers.jax.network import Hyper, init_network
    from ckc_env.training.trainers.jax.update import normalisers, ppo_loss

    config = parse_config(SELF_PLAY)
    hyper = Hyper(ent_coef=0.01, clip_range_vf=0.3)
    rows, inputs, filled, part = 64, 12, 37, 8
    keys = jax.random.split(jax.random.key(4), 8)
    params = init_network(keys[0], inputs, config)
    mask = jax.random.bernoulli(keys[1], 0.5, (rows, N_ACTIONS)).at[:, 0].set(True)
    action = jnp.argmax(mask & jax.random.bernoulli(keys[2], 0.5, (rows, N_ACTIONS)), axis=-1)
    data = (
        jax.random.normal(keys[3], (rows, inputs)),
        mask,
        action,
        -jax.random.uniform(keys[4], (rows,), maxval=3.0),
        jax.random.normal(keys[5], (rows,)),
        jax.random.normal(keys[6], (rows,)),
        jax.random.normal(keys[7], (rows,)),
    )
    weight = (jnp.arange(rows) < filled).astype(jnp.float32)
    grad = jax.grad(lambda p, d, w, n=None: ppo_loss(hyper, p, d, w, n), has_aux=True)
    whole, whole_figures = grad(params, data, weight)
    norm = normalisers(data[5], weight)
    parts = [
        grad(params, tuple(x[k : k + part] for x in data), weight[k : k + part], norm) for k in range(0, filled, part)
    ]
    summed = jax.tree_util.tree_map(lambda *xs: sum(xs), *[g for g, _ in parts])
    for a, b in zip(jax.tree_util.tree_leaves(whole), jax.tree_util.tree_leaves(summed), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-6)
    for name, value in whole_figures.items():
        assert abs(float(value) - sum(float(f[name]) for _, f in parts)) < 1e-5, name
    assert len(parts) == 5  # the rows past the last learner entry were never computed


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"vector": {"num_envs": 16}}, ["self_play.shared", "vector.loop: decision"]),
        ({"engine": "sb3", "vector": {"num_envs": 16}}, ["engine: sb3", "self_play.shared", "engine: jax"]),
        ({"self_play": {}, "vector": {"num_envs": 16}}, ["self-play opponents (self)", "vector.loop: decision"]),
        (
            {"self_play": {}, "opponents": DROP, "population": {"members": ["self", "random"]}, "vector": {}},
            ["self-play opponents (self)", "vector.loop: decision"],
        ),
        ({"belief_features": "players"}, ["belief_features", "vector.loop: decision"]),
        ({"finetune": {"kl_to_start": 0.1}}, ["finetune.kl_to_start", "vector.loop: decision"]),
        ({"vector": {"num_envs": 16, "loop": "each"}}, ["vector.loop", "'learner' or 'decision'"]),
    ],
)
def test_the_decision_loop_is_refused_where_it_does_not_train_naming_the_key(change, words):
    with pytest.raises(ValueError) as caught:
        parse_config({key: value for key, value in {**SELF_PLAY, **change}.items() if value is not DROP})
    for word in words:
        assert word in str(caught.value), (word, str(caught.value))


def test_a_self_play_config_parses_and_shares_the_learner_s_seats():
    config = parse_config(SELF_PLAY)
    assert config.vector.loop == "decision" and config.self_play.shared
    snapshots = parse_config({**SELF_PLAY, "self_play": {"snapshot_every": 64, "keep": 2}})
    assert not snapshots.self_play.shared and snapshots.uses_self_play


def test_a_population_s_snapshot_members_are_a_table_of_self_each_bound_to_its_slot():
    from ckc_env.jax import table_env as table
    from ckc_env.training.trainers.jax.trainer import build_env, training_tables

    population = {"members": [["random"], "self", ["bayes_v1"]]}
    change = {"opponents": DROP, "self_play": {"snapshot_every": 64, "keep": 3}, "population": population}
    config = parse_config({key: value for key, value in {**SELF_PLAY, **change}.items() if value is not DROP})
    tables, slots = training_tables(config)
    assert tables == [["random"], ["bayes_v1"], "self", "self", "self"] and slots == [-1, -1, 0, 1, 2]
    env = build_env(config)
    assert env.snapshots == 3 and env.member_slot == (-1, -1, 0, 1, 2) and env.members == 5
    assert np.all(env.seat_form[2:, 4, 1:4] == table.SNAPSHOT)  # every opponent of a snapshot member
    with pytest.raises(ValueError, match="member_slot"):
        table.TableEnv.build({"num_players": 4}, ["self"], snapshots=1, member_slot=(1,))


def test_an_opponent_holding_most_seats_decides_for_the_whole_batch_others_for_a_quarter_at_a_time():
    """Gathering an opponent's games costs more than deciding in the few where it does not act: a
    form that holds half a table's seats or more decides for every game, one that holds fewer (over
    the population, or at every count) for a quarter of the batch at a time."""
    from ckc_env.jax import table_env as table

    four = table.TableEnv.build({"num_players": 5}, ["bayes_v1"])
    assert four.opponent_chunk(2048, 0) == 2048
    mixed = table.TableEnv.build(
        {"num_players": [3, 4]}, [{3: ["bayes_v1", "random"], 4: ["random", "bayes_v1", "random"]}]
    )
    assert [mixed.opponent_chunk(2048, i) for i in range(2)] == [512, 2048]  # bayes_v1 holds 1 seat of 3 or 4
    population = table.TableEnv.build({"num_players": 4}, ["random", "bayes_v1", "bayes_v1", "random"])
    assert [population.opponent_chunk(2048, i) for i in range(2)] == [512, 512]  # each in half the tables
    snapshots = table.TableEnv.build({"num_players": 4}, ["self"], snapshots=2)
    assert snapshots.opponent_chunk(2048, table.FROZEN) == 2048 and snapshots.opponent_chunk(8, table.FROZEN) == 8


# ---------------------------------------------------------------------------------------------- on the engine
@pytest.mark.slow
def test_keeping_the_learner_s_rows_alone_learns_what_keeping_every_slot_learns(monkeypatch):
    """Against bots the rollout keeps the learner's decisions alone as rows (gathered a chunk at a
    time), not an observation of every slot: the same games are played and the update is the same
    (its minibatch shuffled apart: rounding only); a rollout with more of its decisions than the
    rows plays them all and learns from the rows."""
    from ckc_env.training.trainers.jax import decisions
    from ckc_env.training.trainers.jax.trainer import build_env, start_runner

    against = {**SELF_PLAY, "opponents": ["random"], "self_play": DROP, "game": {"num_players": 5}}
    against["vector"] = {"num_envs": 64, "loop": "decision"}
    against["ppo"] = {**SELF_PLAY["ppo"], "batch_size": 512}  # one minibatch an epoch: its order alone differs
    config = parse_config({key: value for key, value in against.items() if value is not DROP})
    env = build_env(config)
    runner = start_runner(config, env, np.ones(1))
    results = {}
    for rows in (512, 256, 16):  # every slot a row (8 steps x 64); the learner's decisions; fewer than them
        monkeypatch.setattr(decisions, "kept_rows", lambda *_, rows=rows: rows)
        iteration = jax.jit(decisions.make_decision_update(env, config))
        results[rows] = iteration(runner)
    (dense, every), (kept, rows_only), (few, fewer) = (results[r] for r in (512, 256, 16))
    for name in ("learner_steps", "games", "win_share_sum", "margin_sum", "return_sum"):
        assert float(every[name]) == float(rows_only[name]) == float(fewer[name]), name
    assert float(rows_only["unkept_decisions"]) == 0 < float(fewer["unkept_decisions"]) < float(fewer["learner_steps"])
    for a, b in zip(jax.tree_util.tree_leaves(dense.params), jax.tree_util.tree_leaves(kept.params), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-3, atol=1e-5)
    for name in ("value_loss", "approx_kl", "explained_variance"):
        assert abs(float(every[name]) - float(rows_only[name])) < 1e-3 * max(1.0, abs(float(every[name]))), name
    assert all(np.isfinite(np.asarray(x)).all() for x in jax.tree_util.tree_leaves(few.params))


@pytest.mark.slow
def test_every_game_advances_a_decision_per_step_and_the_learner_is_paid_its_margin():
    """Random play at tables of the learner and bots: every game slot advances one decision per
    step, the learner's entries are those of its seats, and the rewards of the learner's seat over a
    game add up to the margin scheme's result of that game (what it earned at the deal included)."""
    from ckc_env.jax import table_env as table

    tables = [{3: ["bayes_v1", "random"], 4: ["random", "bayes_v1", "random"]}]
    env = table.TableEnv.build({"num_players": [3, 4]}, tables, "random", True, "margin")
    size = 8
    ts = table.reset(env, jax.random.key(1), size)
    step = jax.jit(lambda ts, action: table.step(env, ts, action))
    totals = np.zeros(size)
    key = jax.random.key(2)
    ended = 0
    for _ in range(300):
        key, k = jax.random.split(key)
        seat, learner = table.acting(ts)
        role, seat = np.asarray(ts.role), np.asarray(seat)
        assert np.array_equal(np.asarray(learner), role[np.arange(size), seat] == table.LEARNER)
        assert np.all(np.asarray(ts.games.pending_kind) >= 0)  # every slot has a decision to take
        _, mask = table.observe(env, ts)
        own = np.asarray(ts.seat)
        ts, out = step(ts, jax.random.categorical(k, jnp.where(mask, 0.0, -1e9)))
        totals += np.asarray(out.reward)[np.arange(size), own]
        for b in np.flatnonzero(np.asarray(out.done)):
            assert abs(totals[b] - float(out.margin[b])) < 1e-4, (b, totals[b], float(out.margin[b]))
            totals[b] = 0.0
            ended += 1
    assert ended >= 8
    assert set(np.unique(np.asarray(ts.role))) <= {table.EMPTY, table.LEARNER, 0, 1}


@pytest.mark.slow
def test_a_self_play_run_learns_at_every_seat_and_its_agent_file_plays_on_every_engine(tmp_path):
    from ckc_env.evaluation.tournament import run_tournament
    from ckc_env.training.commands import train

    config = tmp_path / "self_play.yaml"
    config.write_text(yaml.safe_dump(SELF_PLAY))
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    rows = (run / "progress.csv").read_text().splitlines()
    steps = [float(row.split(",")[0]) for row in rows[1:]]
    assert steps == [128.0, 256.0]  # every decision a learner step: 8 decisions x 16 slots per iteration
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] == 256 and summary["compile"]["the training iteration"]["seconds"] > 0
    card = json.loads((run / "final_model.json").read_text())
    assert card["training"]["config"]["self_play"]["shared"] is True
    lineup = [str(run / "final_model.json"), "random", "bayes_v1", "random"]
    results = {engine: run_tournament(lineup, 8, seed=7, engine=engine) for engine in ("scalar", "batched", "jax")}
    assert results["scalar"].per_game == results["batched"].per_game == results["jax"].per_game


@pytest.mark.slow
def test_snapshots_play_the_self_seats_on_the_device_and_are_kept_as_the_sb3_path_keeps_them(tmp_path):
    from ckc_env.training.commands import train

    config = {
        **SELF_PLAY,
        "game": {"num_players": 3},
        "opponents": ["self", "random"],
        "self_play": {"snapshot_every": 64, "keep": 2},
    }
    path = tmp_path / "snapshots.yaml"
    path.write_text(yaml.safe_dump(config))
    run = train.main([str(path), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    kept = sorted(p.name for p in (run / "snapshots").glob("snapshot_*.json"))
    assert len(kept) == 2  # the keep latest
    rows = [row.split(",") for row in (run / "progress.csv").read_text().splitlines()[1:]]
    steps = [float(row[0]) for row in rows]
    assert steps[-1] >= 256 and all(
        b - a < 128 for a, b in zip([0.0, *steps], steps, strict=False)
    )  # one seat of three
    card = json.loads((run / "final_model.json").read_text())
    assert card["training"]["config"]["opponents"] == ["self", "random"]


@pytest.mark.slow
def test_a_population_with_self_trains_on_the_device_and_keeps_its_record_as_the_sb3_path(tmp_path):
    """population [[random], self] on the one-decision loop: the snapshots join as members of their
    own, their games move their win rates, population.json is the SB3 path's and a resumed run
    goes on from it."""
    from ckc_env.training.commands import train
    from ckc_env.training.league.population import read_record

    config = {
        key: value
        for key, value in {
            **SELF_PLAY,
            "game": {"num_players": 3},
            "opponents": DROP,
            "population": {"members": [["random"], "self"], "refresh_every": 128},
            "self_play": {"snapshot_every": 128, "keep": 2},
            "total_timesteps": 512,
            "eval": {"every": 512, "games": 16, "opponents": {"vs_random": ["random"]}},
        }.items()
        if value is not DROP
    }
    path = tmp_path / "population.yaml"
    path.write_text(yaml.safe_dump(config))
    run = train.main([str(path), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    record = json.loads((run / "population.json").read_text())
    names = [m["name"] for m in record["members"]]
    kept = sorted(f"self:{p.stem}" for p in (run / "snapshots").glob("snapshot_*.json"))
    assert names == ["random", *kept] and len(kept) == 2  # the tables, then the keep latest snapshots
    assert abs(sum(m["probability"] for m in record["members"]) - 1) < 1e-9
    played = {m["name"]: m["games"] for m in [*record["members"], *record["retired"]]}
    assert played["random"] > 0 and sum(g for name, g in played.items() if name.startswith("self:")) > 0
    summary = json.loads((run / "summary.json").read_text())
    assert [m["name"] for m in summary["population"]] == names
    before = read_record(run / "population.json")
    train.main(["--resume", str(run), "--total-timesteps", "1024", "--no-progress"])
    after = read_record(run / "population.json")
    assert after["random"][1] > before["random"][1]  # the resumed run counts on from the record
