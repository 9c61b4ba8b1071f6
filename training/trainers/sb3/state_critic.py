"""An asymmetric actor-critic (``critic_state: true``): the critic reads the hidden state, the policy does not.

Why: at a table of scripted players a game's result turns largely on what the learner cannot
see, who holds which clue (the cheater, who sees the clues, wins 0.605 of 3-player games against
two bayes_v2 where a seat's fair share is 1/3: ``docs/results/cheater_vs_bayes_v2_3p.json``). A
critic that reads the observation alone explains about half of the win reward's variance there
(``docs/results/attempts/critic_fit_34p_vs_bayes_v2_critic_fit.json``), and what it cannot
explain is noise in PPO's advantages. A critic that also reads the hidden state
(:data:`ckc_env.observation.CRITIC_STATE`: every seat's clue, the bag's faces, the chief, the
deck's cats, every seat's chip values and points) can take the current round's share of that luck
out. Its value depends on the state, never on the action, so it is still a baseline: the policy
gradient stays unbiased. It reads the observation as well, since the observation carries the
public history. The policy reads the observation alone, so the trained agent plays from what its
seat may know (centralised training, decentralised execution: MAPPO's centralised value function,
the asymmetric actor-critic of Pinto et al. 2018).

Measured at 3 players against two bayes_v2 (docs/agents.md, ``state_critic_3p_vs_bayes_v2``):
on the same decisions the state critic explains 0.614 of the returns' variance where the
observation critic explains 0.558, an eighth of what is left, since later rounds deal the clues
afresh; PPO with it stayed level with its start, as it did without.

The vector environment appends the state to each observation (``critic_state=True``). Two pieces
read it:

- :func:`state_critic_policy` builds MaskableActorCriticPolicy with one change: its policy network
  reads the first ``actor_inputs`` numbers (the observation layout), its value network reads all.
- The agent file. Its networks read the plain observation. So the policy also keeps an observation
  critic, a value network of the same shape on the observation alone. :func:`with_state_critic`
  regresses it on the rollout's returns after every PPO update (one pass). The exported file
  carries it as its value network: ``init_from`` and ``PolicyNetwork.values`` read a critic of
  the observation, and the state critic stays in the run's zip.
"""

from __future__ import annotations

from typing import Any


def state_critic_policy():
    """The policy class (imported lazily: the ``train`` extra)."""
    import torch as th
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import MlpExtractor

    class SplitExtractor(th.nn.Module):
        """MlpExtractor whose policy network reads the first ``actor_inputs`` features and whose
        value network reads all (the same module names, so a plain policy's weights load into it)."""

        def __init__(self, actor_inputs: int, feature_dim: int, net_arch: Any, activation_fn: Any, device: Any) -> None:
            super().__init__()
            self.actor_inputs = actor_inputs
            actor = MlpExtractor(actor_inputs, net_arch, activation_fn, device)
            critic = MlpExtractor(feature_dim, net_arch, activation_fn, device)
            self.policy_net, self.value_net = actor.policy_net, critic.value_net
            self.latent_dim_pi, self.latent_dim_vf = actor.latent_dim_pi, critic.latent_dim_vf

        def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
            return self.forward_actor(features), self.forward_critic(features)

        def forward_actor(self, features: th.Tensor) -> th.Tensor:
            return self.policy_net(features[..., : self.actor_inputs])

        def forward_critic(self, features: th.Tensor) -> th.Tensor:
            return self.value_net(features)

    class StateCriticPolicy(MaskableActorCriticPolicy):
        """The policy reads the observation; the critic reads the observation and the hidden state
        (see the module docstring). ``actor_inputs``: the observation layout's size."""

        def __init__(self, *args: Any, actor_inputs: int, **kwargs: Any) -> None:
            self.actor_inputs = actor_inputs
            super().__init__(*args, **kwargs)

        def _build_mlp_extractor(self) -> None:
            if not 0 < self.actor_inputs < self.features_dim:
                raise ValueError(
                    f"actor_inputs={self.actor_inputs}: the policy reads a part of the {self.features_dim} features"
                )
            self.mlp_extractor = SplitExtractor(
                self.actor_inputs, self.features_dim, self.net_arch, self.activation_fn, self.device
            )
            observation = MlpExtractor(self.actor_inputs, self.net_arch, self.activation_fn, self.device)
            self.observation_value_net = observation.value_net
            self.observation_value = th.nn.Linear(observation.latent_dim_vf, 1)

        def observation_values(self, observations: th.Tensor) -> th.Tensor:
            """The observation critic's estimate (from the observation part alone)."""
            return self.observation_value(self.observation_value_net(observations[..., : self.actor_inputs]))

        def observation_critic_parameters(self) -> list:
            return [*self.observation_value_net.parameters(), *self.observation_value.parameters()]

        def _get_constructor_parameters(self) -> dict[str, Any]:
            return {**super()._get_constructor_parameters(), "actor_inputs": self.actor_inputs}

    return StateCriticPolicy


def with_state_critic(model_class):
    """``model_class`` (MaskablePPO or its fine-tuning subclass) whose every update is followed by
    one pass regressing the observation critic on the rollout's returns."""
    import torch as th

    class StateCriticPPO(model_class):
        observation_optimizer: Any = None

        def train(self) -> None:
            super().train()
            self.fit_observation_critic()

        def fit_observation_critic(self) -> None:
            policy = self.policy
            parameters = policy.observation_critic_parameters()
            if self.observation_optimizer is None:
                self.observation_optimizer = th.optim.Adam(parameters, lr=self.lr_schedule(1.0))
            for group in self.observation_optimizer.param_groups:  # PPO's schedule, as its own optimizer
                group["lr"] = self.lr_schedule(self._current_progress_remaining)
            losses = []
            policy.set_training_mode(True)
            for data in self.rollout_buffer.get(self.batch_size):
                values = policy.observation_values(data.observations).flatten()
                loss = th.nn.functional.mse_loss(values, data.returns)
                self.observation_optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(parameters, self.max_grad_norm)
                self.observation_optimizer.step()
                losses.append(loss.item())
            policy.set_training_mode(False)
            self.logger.record("train/observation_value_loss", sum(losses) / max(len(losses), 1))

    return StateCriticPPO
