"""Self-play against a population of tables on the batched engine: the vector environment drawing
each slot's table from weighted members (ckc_env.envs.vector), its worker-process form, the
prioritised fictitious self-play weights (training/population.py) and a tiny training run."""

from __future__ import annotations

import numpy as np
import pytest

from ckc_env.batch.agents import uniform_legal
from ckc_env.envs.subproc_vector import SubprocVectorEnv
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.seeding import derive_seed

TABLES = [["passive"], ["eager"]]


def play(env, steps: int, seed: int = 0):
    """Random legal play: every step's infos (the members of the slots' games and of the finished ones)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        actions = uniform_legal(env.action_masks().astype(np.int8), rng)
        _, rewards, terminated, _, infos = env.step(actions)
        out.append((rewards, terminated, infos))
    return out


@pytest.mark.slow
def test_each_slot_plays_a_table_drawn_from_the_population_reproducibly():
    env = CheckpointCharlieVectorEnv(24, population=TABLES, population_weights=[1, 3], reward="win")
    _, infos = env.reset(seed=3)
    assert infos["opponents"].dtype == np.int64 and infos["_opponents"].all()
    drawn = [infos["opponents"].copy()]
    finished = []
    for _, terminated, step_infos in play(env, 60):
        drawn.append(step_infos["opponents"])
        if terminated.any():
            final = step_infos["final_info"]
            assert np.array_equal(final["_opponents"], terminated)
            finished.extend(final["opponents"][terminated])
    members = np.concatenate(drawn)
    assert set(members) == {0, 1} and (members == 1).mean() > 0.5  # weight 3 against 1
    assert set(finished) == {0, 1}
    # one seed, one run: the same members drawn at every deal
    again = CheckpointCharlieVectorEnv(24, population=TABLES, population_weights=[1, 3], reward="win")
    _, repeat = again.reset(seed=3)
    assert np.array_equal(repeat["opponents"], drawn[0])
    for k, (_, _, step_infos) in enumerate(play(again, 60)):
        assert np.array_equal(step_infos["opponents"], drawn[k + 1])


def test_the_member_decides_who_sits_at_the_table():
    """The batched player who acts in a slot is its member's: one player per distinct spec, shared."""
    env = CheckpointCharlieVectorEnv(16, population=[["passive"], ["eager"]], learner_seat=0)
    env.reset(seed=1)
    assert env._players and len(env._players) == 2
    index = env._player_index[env.member, 5, 1]
    assert np.array_equal(
        np.array([env._players[i].name for i in index]), np.where(env.member == 0, "passive", "eager")
    )


@pytest.mark.slow
def test_a_member_of_weight_zero_is_never_drawn():
    env = CheckpointCharlieVectorEnv(32, population=[["random"], ["passive"], "eager"], population_weights=[0, 1, 1])
    _, infos = env.reset(seed=0)
    seen = [infos["opponents"]]
    for _, terminated, step_infos in play(env, 40):
        seen.append(step_infos["opponents"])
        if terminated.any():
            assert (step_infos["final_info"]["opponents"][terminated] != 0).all()
    seen = np.concatenate(seen)
    assert 0 not in seen and {1, 2} <= set(seen)


@pytest.mark.slow
def test_set_population_takes_effect_at_each_slots_next_deal():
    env = CheckpointCharlieVectorEnv(16, population=[["passive"]], reward="win")
    _, infos = env.reset(seed=4)
    assert (infos["opponents"] == 0).all()
    play(env, 3)
    env.set_population([["eager"], ["passive"]], [1.0, 0.0])  # passive is now member 1, weight 0
    running = env.member.copy()
    assert (running == 1).all()  # the games in progress keep their table, renumbered
    dealt = np.zeros(16, dtype=bool)
    for _, terminated, step_infos in play(env, 80):
        if terminated.any():
            final = step_infos["final_info"]["opponents"][terminated]
            assert set(final) <= {0, 1}
            assert (final[dealt[terminated]] == 0).all()  # a game dealt after the change: eager's
            dealt |= terminated
        assert (step_infos["opponents"][dealt] == 0).all()
    assert dealt.all()
    env.set_population([["random"]])  # eager dropped: slots still playing it report -1
    assert (env._member_index() == -1).all() and len(env._members) == 1
    assert {p.name for p in env._players} == {"random", "eager"}  # eager's player kept for those games
    play(env, 60)
    assert {p.name for p in env._players} <= {"random", "eager"}


def test_bad_members_and_weights_are_refused_by_name():
    with pytest.raises(ValueError, match=r"invalid population\[1\]="):
        CheckpointCharlieVectorEnv(4, population=[["passive"], ["passive", "eager"]])
    with pytest.raises(ValueError, match="unknown player"):
        CheckpointCharlieVectorEnv(4, population=[["nobody"]])
    with pytest.raises(ValueError, match="invalid population_weights"):
        CheckpointCharlieVectorEnv(4, population=TABLES, population_weights=[1, -1])
    with pytest.raises(ValueError, match="at least one of them above 0"):
        CheckpointCharlieVectorEnv(4, population=TABLES, population_weights=[0, 0])
    with pytest.raises(ValueError, match="invalid population="):
        CheckpointCharlieVectorEnv(4, population=[])
    env = CheckpointCharlieVectorEnv(4, population=TABLES)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="invalid population_weights"):
        env.set_population(TABLES, [1])
    assert len(env._members) == 2  # unchanged
    with pytest.raises(ValueError, match="self"):
        env.set_population([["self"]])


@pytest.mark.slow
def test_without_a_population_nothing_changes():
    plain = CheckpointCharlieVectorEnv(8, opponents="bayes_v1")
    _, infos = plain.reset(seed=0)
    assert "opponents" not in infos
    one = CheckpointCharlieVectorEnv(8, population=["bayes_v1"])
    a, _ = plain.reset(seed=2)
    b, _ = one.reset(seed=2)
    assert np.array_equal(a, b)  # a population of one table plays that table, the same games
    for (ra, ta, _), (rb, tb, _) in zip(play(plain, 30), play(one, 30), strict=True):
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb)


@pytest.mark.slow
def test_worker_processes_play_what_in_process_shards_play():
    kwargs = {"population": [["passive"], ["bayes_v1"], "eager"], "population_weights": [1, 2, 1], "reward": "margin"}
    sharded = SubprocVectorEnv(9, workers=2, **kwargs)
    shards = [CheckpointCharlieVectorEnv(size, **kwargs) for size in (5, 4)]
    try:
        observations, infos = sharded.reset(seed=7)
        expected = [shard.reset(seed=derive_seed(7, "shard", i)) for i, shard in enumerate(shards)]
        assert np.array_equal(observations, np.concatenate([o for o, _ in expected]))
        assert np.array_equal(infos["opponents"], np.concatenate([i["opponents"] for _, i in expected]))
        rng = np.random.default_rng(0)
        for step in range(50):
            if step == 20:
                sharded.set_population([["eager"], ["passive"]], [1, 1])
                for shard in shards:
                    shard.set_population([["eager"], ["passive"]], [1, 1])
            actions = uniform_legal(sharded.action_masks().astype(np.int8), rng)
            obs, rewards, terminated, _, infos = sharded.step(actions)
            parts = [shards[0].step(actions[:5]), shards[1].step(actions[5:])]
            assert np.array_equal(obs, np.concatenate([p[0] for p in parts]))
            assert np.array_equal(rewards, np.concatenate([p[1] for p in parts]))
            assert np.array_equal(infos["opponents"], np.concatenate([p[4]["opponents"] for p in parts]))
            if terminated.any():
                final = [
                    p[4]["final_info"]["opponents"] if "final_info" in p[4] else np.zeros(len(p[1]), int) for p in parts
                ]
                assert np.array_equal(infos["final_info"]["opponents"], np.concatenate(final))
        with pytest.raises(ValueError, match="invalid population_weights"):
            sharded.set_population([["eager"]], [-1])
    finally:
        sharded.close()


def test_pfsp_weights_favour_the_members_the_learner_beats_least():
    from ckc_env.training.league.population import member_weights

    rates = np.array([0.0, 0.2, 0.5, 0.9, 1.0])
    weights = member_weights(rates, "pfsp", power=2, floor=0.05)
    assert np.allclose(weights, [1.0, 0.64, 0.25, 0.05, 0.05])  # (1 - p)^2, floored at 0.05
    assert np.allclose(member_weights(rates, "pfsp", power=1, floor=0.2, priors=[2, 1, 1, 1, 0]), [2, 0.8, 0.5, 0.2, 0])
    assert np.allclose(member_weights(rates, "uniform", priors=[1, 2, 3, 4, 5]), [1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="accepted values are pfsp, uniform"):
        member_weights(rates, "elo")


def test_the_population_section_is_validated():
    from ckc_env.training.config import parse_config

    vector = {"num_envs": 16}
    config = parse_config({"vector": vector, "population": {"members": [["bayes_v1"], "bayes_v2", "self"]}})
    assert config.population.members == [["bayes_v1"], ["bayes_v2"], "self"] and config.uses_self_play
    assert "opponents" not in config.to_dict() and config.to_dict()["population"]["scheme"] == "pfsp"
    bad = [
        ({"population": {"members": ["self"]}}, "with a vector section"),
        ({"vector": vector, "population": {"members": ["self"], "elo": 1}}, r"unknown key\(s\) \['population.elo'\]"),
        ({"vector": vector, "population": {"members": ["self", "random"], "weights": [1, -1]}}, "population.weights"),
        ({"vector": vector, "population": {"members": [["random", "self"]]}}, r"population.members\[0\]"),
        ({"vector": vector, "population": {"members": []}}, "population.members"),
        ({"vector": vector, "population": {"members": ["self"], "scheme": "elo"}}, "pfsp, uniform"),
        ({"vector": vector, "population": {"members": ["self"], "power": -1}}, "population.power"),
        ({"vector": vector, "population": {"members": ["self"], "floor": 2}}, "population.floor"),
        ({"vector": vector, "opponents": ["random"], "population": {"members": ["self"]}}, "both given"),
    ]
    for data, words in bad:
        with pytest.raises(ValueError, match=words):
            parse_config(data)


@pytest.mark.slow
def test_a_population_self_play_run_snapshots_records_and_resumes(tmp_path):
    import json

    pytest.importorskip("sb3_contrib")
    from ckc_env.training.commands import train

    config = tmp_path / "population.yaml"
    config.write_text(
        "seed: 0\ntotal_timesteps: 1536\nreward: win\nbelief_features: false\n"
        "population: {members: [[passive], [random], self], scheme: pfsp, horizon: 20, refresh_every: 256}\n"
        "self_play: {snapshot_every: 512, keep: 2}\n"
        "ppo: {n_steps: 8, batch_size: 64, n_epochs: 1}\npolicy: {net_arch: [16]}\n"
        "eval: {every: 100_000, games: 10, opponents: {vs_random: [random]}}\n"
        "vector: {num_envs: 32}\n"
    )
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    snapshots = sorted(p.name for p in (run / "snapshots").glob("snapshot_*.json"))
    assert len(snapshots) == 2  # at 512 and 1024 (the keep latest)
    record = json.loads((run / "population.json").read_text())
    names = [m["name"] for m in record["members"]]
    assert names[:2] == ["passive", "random"] and any(n.startswith("self:snapshot_") for n in names[2:])
    assert abs(sum(m["probability"] for m in record["members"]) - 1) < 1e-9
    played = {m["name"]: m for m in record["members"]}
    assert played["passive"]["games"] > 0 and played["random"]["games"] > 0
    assert played["passive"]["win_rate"] != 0.2  # moved from the fair share
    train.main(["--resume", str(run), "--total-timesteps", "2560", "--no-progress"])
    resumed = json.loads((run / "population.json").read_text())
    again = {m["name"]: m for m in resumed["members"]}
    assert resumed["timesteps"] >= 2048 and again["passive"]["games"] > played["passive"]["games"]
    snapshots = sorted(int(p.stem.split("_")[1]) for p in (run / "snapshots").glob("snapshot_*.json"))
    assert len(snapshots) == 2 and all(s % 512 < 32 for s in snapshots)  # every 512 steps after a resume too
