"""Fine-tuning a cloned policy with PPO without losing what the cloning gave (``finetune`` section).

After behaviour cloning, PPO starts from a strong policy but from a critic that has only seen the
teacher's games, and its first updates follow advantages measured by that critic; the entropy bonus
and the clipped steps then move a nearly deterministic policy towards the uniform one. Two remedies,
each a switch of the config's ``finetune`` section:

``critic_warmup: N``
    For the first N learner steps the policy's own weights are frozen: PPO's updates fit the value
    network alone, to the returns of the cloned policy itself, before any advantage moves the policy.
``kl_to_start: c`` (with ``kl_decay: D``)
    After each PPO update, one pass over the rollout's observations takes gradient steps on
    ``c_t * KL(start || current)``, where ``start`` is the policy at step 0 (the cloned one, kept
    frozen, ``start_policy.safetensors`` in the run folder) and ``c_t`` decays linearly from ``c`` to
    0 over the first D steps (D = 0: constant). PPO may move away from the clone where its returns say
    so, and is pulled back where they do not.

``critic_fit: N`` (with ``critic_fit_epochs``; vector runs)
    Before PPO, the start policy plays N decisions on the training tables (its greedy actions, its
    evaluated file, every slot of the batch at once) and the value network alone is regressed on
    the discounted returns that followed (mean squared error, Adam at 3e-4, a tenth held out;
    ``critic_fit.json`` logs the explained variance of the held-out returns after every pass).
    A critic carried over from another reward or from a teacher's games predicts nothing of the
    run's returns (the one ``ppo_all_counts`` carries, fitted to the margin reward, explains -7.8
    of the win reward's variance at 3-4 players; ten passes bring it to 0.53,
    docs/results/attempts/critic_fit_34p_vs_bayes_v2_critic_fit.json), and 8-step bootstrapped
    updates fix it only slowly, so that PPO's first advantages measure the critic's error.

The first two act inside :class:`FineTunedPPO`, MaskablePPO with ``train()`` extended (the PPO
update itself is sb3-contrib's, unchanged); the run's ``evaluations.json`` then compares every
model with the cloned start on the same games (``vs_start``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config import FineTune

START_POLICY = "start_policy.safetensors"


def actor_parameters(policy) -> list:
    """The parameters of the policy's action head (MlpPolicy: its policy network and action net;
    the feature extractor of a flat observation has none)."""
    return [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]


def fine_tuned_ppo():
    """MaskablePPO with the fine-tuning remedies (imported lazily: the ``train`` extra)."""
    import torch as th
    from sb3_contrib import MaskablePPO

    class FineTunedPPO(MaskablePPO):
        """MaskablePPO whose updates first fit the critic alone, then are pulled towards the
        policy it started from (see the module docstring)."""

        finetune: FineTune = FineTune()
        start_policy: Any = None

        def train(self) -> None:
            warming = self.num_timesteps <= self.finetune.critic_warmup
            actor = actor_parameters(self.policy)
            for parameter in actor:
                parameter.requires_grad_(not warming)
            try:
                super().train()
            finally:
                for parameter in actor:
                    parameter.requires_grad_(True)
            self.logger.record("train/critic_warmup", float(warming))
            if not warming:
                self.pull_towards_start()

        def pull_towards_start(self) -> None:
            weight = self.finetune.kl_weight(self.num_timesteps)
            if weight <= 0 or self.start_policy is None:
                return
            divergences = []
            for data in self.rollout_buffer.get(self.batch_size):
                with th.no_grad():
                    start = self.start_policy.get_distribution(data.observations, action_masks=data.action_masks)
                p = start.distribution.probs
                log_q = self.policy.get_distribution(
                    data.observations, action_masks=data.action_masks
                ).distribution.logits
                kl = (th.special.xlogy(p, p) - p * log_q).sum(dim=-1).mean()  # masked actions: p = 0
                self.policy.optimizer.zero_grad()
                (weight * kl).backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
                divergences.append(kl.item())
            self.logger.record("train/kl_to_start", sum(divergences) / max(len(divergences), 1))
            self.logger.record("train/kl_weight", weight)

    return FineTunedPPO


def critic_parameters(policy) -> list:
    """The parameters of the value head (MlpPolicy: its value network and value output)."""
    return [*policy.mlp_extractor.value_net.parameters(), *policy.value_net.parameters()]


def fit_critic(model, config, start: Path, trust_checkpoint: bool = False) -> dict[str, Any]:
    """``critic_fit``: the start policy (the agent file ``start``) plays ``critic_fit`` decisions on
    the training tables, and the value head is regressed on their discounted returns; the log holds
    the held-out explained variance before and after each pass."""
    import time

    import numpy as np
    import torch

    from ckc_env.seeding import derive_seed

    from ..envs import make_vector_env
    from .cloning import collect_batched

    settings = config.finetune
    started = time.time()
    env = make_vector_env(config, trust_checkpoint, in_process=True)
    try:
        data = collect_batched(
            env, str(start), settings.critic_fit, model.gamma, derive_seed(config.seed, "critic_fit"), trust_checkpoint
        )
    finally:
        env.close()
    collected = round(time.time() - started, 1)
    rng = np.random.default_rng(derive_seed(config.seed, "critic_fit", "order"))
    order = rng.permutation(len(data))
    cut = int(len(data) * 0.9)
    train_idx, test_idx = order[:cut], order[cut:]
    observations, returns = torch.as_tensor(data.observations), torch.as_tensor(data.returns)
    policy = model.policy
    state_critic = hasattr(policy, "observation_values")  # training/state_critic.py: fit both critics
    parameters = critic_parameters(policy) + (policy.observation_critic_parameters() if state_critic else [])
    optimizer = torch.optim.Adam(parameters, lr=3e-4)

    def explained(idx: np.ndarray, values_of=policy.predict_values) -> float:
        with torch.no_grad():
            values = values_of(observations[idx]).flatten()
        target = returns[idx]
        return float(1.0 - torch.var(target - values) / torch.var(target))

    def loss_of(batch: torch.Tensor) -> torch.Tensor:
        target = returns[batch]
        loss = torch.nn.functional.mse_loss(policy.predict_values(observations[batch]).flatten(), target)
        if state_critic:
            loss = loss + torch.nn.functional.mse_loss(policy.observation_values(observations[batch]).flatten(), target)
        return loss

    log: dict[str, Any] = {
        "decisions": len(data),
        "held_out": len(test_idx),
        "collect_seconds": collected,
        "return_variance": float(returns.var()),
        "explained_variance": [explained(test_idx)],
    }
    if state_critic:  # explained_variance is the state critic's; this, the observation critic's
        log["observation_explained_variance"] = [explained(test_idx, policy.observation_values)]
    policy.set_training_mode(True)
    for _ in range(settings.critic_fit_epochs):
        rng.shuffle(train_idx)
        for first in range(0, len(train_idx), 512):
            batch = torch.as_tensor(train_idx[first : first + 512])
            loss = loss_of(batch)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, model.max_grad_norm)
            optimizer.step()
        log["explained_variance"].append(explained(test_idx))
        if state_critic:
            log["observation_explained_variance"].append(explained(test_idx, policy.observation_values))
        print(
            f"critic_fit pass {len(log['explained_variance']) - 1}/{settings.critic_fit_epochs}: held-out "
            f"explained variance {log['explained_variance'][-1]:.3f}",
            flush=True,
        )
    policy.set_training_mode(False)
    policy.optimizer.zero_grad(set_to_none=True)
    log["seconds"] = round(time.time() - started, 1)
    return log


def init_from(model, path: str | Path, config) -> Path:
    """Start the model from a safe agent file's policy and critic (``init_from``): the file must
    have been trained on the observation layout the config gives, or on one the config's layout
    extends (``"second_order"`` appends pieces to ``"players"``: the first layers' weights of the
    new inputs start at zero, so the model starts as the file's policy and critic), at every player
    count the config plays, with the config's network. With ``critic_state`` the file's critic
    starts the observation critic and the state critic (the state's inputs at zero weights).
    Returns the card read; nothing is unpickled."""
    import torch

    from ckc_env.files import InputError
    from ckc_env.players import agent_file

    card = check_init_from(path, config)
    source = agent_file.torch_policy(card.path)
    state = source.state_dict()
    expected = {name: tuple(t.shape) for name, t in model.policy.state_dict().items()}
    if config.critic_state:  # the file's critic starts both the observation critic and the state critic
        state["observation_value.weight"], state["observation_value.bias"] = (
            state["value_net.weight"],
            state["value_net.bias"],
        )
        for name, tensor in list(state.items()):
            if name.startswith("mlp_extractor.value_net."):
                state[name.replace("mlp_extractor.value_net.", "observation_value_net.", 1)] = tensor
    for name, tensor in state.items():  # the inputs the file lacks start with zero weights: its policy and critic
        width = expected.get(name, ())[1:]
        if tensor.ndim == 2 and tensor.shape[1] == card.layout.size and width and width[0] > card.layout.size:
            state[name] = torch.cat([tensor, tensor.new_zeros((tensor.shape[0], width[0] - card.layout.size))], dim=1)
    found = {name: tuple(t.shape) for name, t in state.items()}
    activations = {layer.activation for layer in card.policy[:-1] + card.value[:-1]}
    if expected != found or not activations <= {config.policy.get("activation_fn", "tanh")}:
        pi, vf = ([layer.outputs for layer in net[:-1]] for net in (card.policy, card.value))
        raise InputError(
            f"init_from={path}: {card.path} has the network pi={pi}, vf={vf} ({sorted(activations)}), not the "
            f"config's policy {config.policy}: set policy.net_arch (and activation_fn) to match"
        )
    with torch.no_grad():
        model.policy.load_state_dict(state)
    return card.path


def check_init_from(path: str | Path, config):
    """The card ``init_from`` names, checked against the config (layout, player counts) before
    anything is built; no torch needed."""
    from ckc_env.files import InputError
    from ckc_env.observation import ENV_VERSION, LAYOUTS
    from ckc_env.players import agent_file

    try:  # the file loaded as every agent file is: its card, its weights' hash, the probe of its network
        card = agent_file.load_agent(agent_file.card_path(path)).card
    except InputError as exc:
        raise InputError(f"init_from={path}: {exc}") from None
    layout = LAYOUTS[ENV_VERSION][config.belief_features]
    prefix = layout.pieces[: len(card.layout.pieces)] == card.layout.pieces  # the config's layout extends the card's
    if card.layout != layout and not prefix:
        raise InputError(
            f"init_from={path}: {card.path} reads the observation layout {card.version} "
            f"belief_features={card.belief_features!r} ({card.layout.size} numbers), the config gives "
            f"{ENV_VERSION} belief_features={config.belief_features!r} ({layout.size}): set belief_features to match "
            "(or to a layout that appends pieces to the file's)"
        )
    missing = sorted(set(config.player_counts) - set(card.players))
    if missing:
        raise InputError(f"init_from={path}: {card.path} plays {list(card.players)} players, the config also {missing}")
    return card


def keep_start(model, run_dir: Path) -> None:
    """Freeze a copy of the model's policy as its start, and write it to the run folder (safetensors:
    a resumed run reads it back without unpickling)."""
    from safetensors.torch import save

    from ckc_env.files import write_atomic

    write_atomic(run_dir / START_POLICY, save({k: v.contiguous() for k, v in model.policy.state_dict().items()}))
    model.start_policy = _frozen_copy(model.policy)


def load_start(model, run_dir: Path) -> None:
    """The start policy of a resumed run, from its folder."""
    from safetensors.torch import load_file

    path = run_dir / START_POLICY
    if not path.is_file():
        raise ValueError(
            f"{run_dir} has no {START_POLICY}: the run's finetune section needs the policy it started from"
        )
    start = _frozen_copy(model.policy)
    start.load_state_dict(load_file(str(path)))
    model.start_policy = start


def _frozen_copy(policy):
    """A new policy of the same build with the same weights, in evaluation mode, never trained."""
    start = type(policy)(**policy._get_constructor_parameters())
    start.load_state_dict(policy.state_dict())
    start.set_training_mode(False)
    for parameter in start.parameters():
        parameter.requires_grad_(False)
    return start
