"""The RLlib training configs (``configs/rllib/``) and RLlib checkpoints as player specs: checked
without ray, so these run in every install."""

from __future__ import annotations

import pytest

from ckc_env import configs, players
from ckc_env.players import loading, specs
from ckc_env.training.config.rllib import load_config, parse_config


# ---------------------------------------------------------------------------------------- configs
def test_every_shipped_rllib_config_loads():
    names = configs.names("rllib")
    assert {"smoke", "vs_random", "vs_bayes", "self_play"} <= set(names)
    for name in names:
        config = load_config(configs.preset("rllib", name))
        assert config.iterations >= 1


@pytest.mark.parametrize(
    ("data", "pattern"),
    [
        ({"bogus": 1}, r"unknown key\(s\) \['bogus'\].*accepted keys"),
        ({"ppo": {"lr": 1e-3, "learning_rate": 0.1}}, r"ppo.learning_rate.*accepted keys.*'lr'"),
        ({"ppo": {"lr": "3e-4"}}, r"ppo.lr='3e-4'.*YAML reads 3e-4 as text"),
        ({"ppo": {"num_epochs": 0}}, r"ppo.num_epochs=0.*integer >= 1"),
        ({"ppo": {"minibatch_size": 500, "train_batch_size_per_learner": 200}}, r"minibatch_size=500.*at most"),
        ({"env": {"learning_seats": 6}}, r"env.learning_seats=6.*'all' or 1 to 5"),
        ({"env": {"learning_seats": "all", "opponents": "random"}}, r"env.opponents.*every seat learns"),
        ({"env": {"learning_seats": 1, "opponents": "nobody"}}, r"unknown player 'nobody'"),
        ({"env": {"reward": "score"}}, r"env.reward='score'.*'points', 'win', 'margin'"),
        ({"scaling": {"num_env_runners": -1}}, r"scaling.num_env_runners=-1.*>= 0"),
        ({"scaling": {"num_gpus": 1}}, r"scaling.num_gpus.*accepted keys"),
        ({"model": {"fcnet_hiddens": []}}, r"model.fcnet_hiddens.*non-empty list"),
        ({"model": {"fcnet_activation": "gelu"}}, r"fcnet_activation.*'tanh' or 'relu'"),
        ({"game": {"num_players": 6}}, r"num_players"),
        ({"iterations": 1e3}, r"iterations=1000.0.*integer >= 1"),
    ],
)
def test_bad_rllib_configs_are_refused_by_name(data, pattern):
    with pytest.raises(ValueError, match=pattern):
        parse_config(data)


def test_an_untrusted_rllib_checkpoint_is_refused_with_the_ways_on(tmp_path, monkeypatch):
    monkeypatch.delenv("CKC_TRUST_CHECKPOINTS", raising=False)
    module = tmp_path / "checkpoint" / loading.RLLIB_MODULE
    module.mkdir(parents=True)
    for name in ("module_state.pkl", "class_and_ctor_args.pkl"):
        (module / name).write_bytes(b"")  # never read: refused before loading
    assert specs.parse(str(tmp_path)).kind == "rllib"
    with pytest.raises(ValueError, match=r"without trust.*pickle.*best_model.json.*--trust-checkpoint"):
        players.validate(str(tmp_path))
