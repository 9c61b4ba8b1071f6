"""A spec checked and built once, for either engine.

:func:`resolve` takes a spec apart (:mod:`ckc_env.players.specs`), checks it and loads what it names
once: a scripted player is built once with its parameters; a checkpoint is located by the loading
rule (:mod:`ckc_env.players.loading`) and its network loaded (a zip or an RLlib checkpoint only with
trust). The :class:`Player` it returns then builds seeded players for the scalar engine
(:meth:`Player.scalar`) or the batched one (:meth:`Player.batched`) without checking or loading
again. ``validate``, ``build`` and ``build_batched`` are the one-call forms.

| spec | scalar | batched |
|---|---|---|
| a name of ``ckc_env.agents.REGISTRY`` | the scripted player | its form of ``ckc_env.batch.agents.BATCH_REGISTRY`` |
| a checkpoint (agent card, trusted zip) | :class:`~ckc_env.players.policy.PolicyAgent` | :class:`~ckc_env.players.batch_policy.BatchPolicyAgent` |
| an RLlib checkpoint (trusted) | :class:`~ckc_env.players.rllib.RLlibAgent` | none |
"""

from __future__ import annotations

from dataclasses import dataclass

from ..agents import Agent, make_agent
from ..batch.agents import BATCH_REGISTRY, BatchAgent, make_batch_agent
from ..cli import need_extra
from ..files import keys_text, short, short_text, unknown_keys
from .agent_file import PolicyNetwork
from .loading import AgentSource, locate, require_trust
from .specs import PlayerSpec, Spec, label, parse

ACCEPTED_BATCHED = f"batched players are {sorted(BATCH_REGISTRY)} (with parameters) and checkpoints"


@dataclass(frozen=True)
class Player:
    """A checked spec, ready to build seeded players: ``network`` is a checkpoint's loaded policy
    (None for scripted players and RLlib checkpoints, which RLlib loads when built)."""

    spec: PlayerSpec
    parsed: Spec
    trust_checkpoint: bool = False
    source: AgentSource | None = None
    network: PolicyNetwork | None = None

    @property
    def label(self) -> str:
        return label(self.spec)

    @property
    def batch_capable(self) -> bool:
        """Whether the player has a batched form."""
        if self.parsed.kind == "agent":
            return self.parsed.name in BATCH_REGISTRY
        return self.network is not None

    def scalar(self, seed: int | None) -> Agent:
        """A seeded player for the scalar engine."""
        kind = self.parsed.kind
        if kind == "agent":
            return make_agent(self.parsed.name, seed=seed, **self.parsed.params)
        if kind == "self":
            raise ValueError("'self' (snapshots of the learner) is built by the training code")
        if self.source is not None and self.source.kind == "rllib":
            self.require_extras()
            from .rllib import RLlibAgent

            return RLlibAgent(self.source, seed=seed, trust_checkpoint=self.trust_checkpoint, **self.parsed.params)
        from .policy import PolicyAgent

        return PolicyAgent(self.source, seed=seed, trust_checkpoint=self.trust_checkpoint, **self.parsed.params)

    def require_extras(self) -> None:
        """A ValueError naming the extra to install when building the scalar player needs a library
        that is missing (an RLlib checkpoint: ray, the ``rllib`` extra)."""
        if self.source is not None and self.source.kind == "rllib":
            try:
                need_extra("rllib", "ray")
            except ValueError as exc:
                raise ValueError(f"player {short(self.label)} is an RLlib checkpoint: {exc}") from None

    def batched(self, seed: int | None) -> BatchAgent:
        """A seeded player for the batched engine; a ValueError names the batched players if it has no such form."""
        if self.parsed.kind == "agent":
            if self.parsed.name not in BATCH_REGISTRY:
                raise ValueError(f"player {short(self.label)} has no batched form: {ACCEPTED_BATCHED}")
            return make_batch_agent(self.parsed.name, seed=seed, **self.parsed.params)
        if self.network is None:
            raise ValueError(
                f"player {short(self.label)} is an RLlib checkpoint, which has no batched form: {ACCEPTED_BATCHED}"
            )
        from .batch_policy import BatchPolicyAgent

        return BatchPolicyAgent(self.source, seed=seed, trust_checkpoint=self.trust_checkpoint, **self.parsed.params)


def resolve(spec: PlayerSpec, trust_checkpoint: bool = False, allow_self: bool = False) -> Player:
    """Check a spec and load what it names, once (ValueError naming the problem and what is accepted)."""
    parsed = parse(spec, allow_self)
    if parsed.kind == "agent":
        try:
            make_agent(parsed.name, seed=0, **parsed.params)
        except TypeError as exc:
            shown = keys_text(unknown_keys(parsed.params, ()))
            raise ValueError(
                f"agent {short(parsed.name)} takes no parameters {shown}: {short_text(str(exc))}"
            ) from None
        return Player(spec, parsed, trust_checkpoint)
    if parsed.kind == "self":
        return Player(spec, parsed, trust_checkpoint)
    unknown = unknown_keys(parsed.params, ("deterministic",))
    if unknown:
        what = "RLlib checkpoint" if parsed.kind == "rllib" else "checkpoint"
        raise ValueError(f"{what} {short(parsed.name)} takes the parameter deterministic, not {keys_text(unknown)}")
    source = locate(parsed.name)
    require_trust(source, trust_checkpoint)
    if source.kind == "rllib":  # loaded by ray when the player is built
        return Player(spec, parsed, trust_checkpoint, source)
    from .policy import load_policy

    return Player(spec, parsed, trust_checkpoint, source, load_policy(source, trust_checkpoint))


def validate(spec: PlayerSpec, allow_self: bool = False, trust_checkpoint: bool = False) -> Spec:
    """Fail early, with the accepted values (and the extra to install when the player needs one);
    returns the spec taken apart."""
    player = resolve(spec, trust_checkpoint, allow_self)
    player.require_extras()
    return player.parsed


def build(spec: PlayerSpec | Player, seed: int | None, trust_checkpoint: bool = False) -> Agent:
    """The scalar player a spec names, seeded (``"self"`` is resolved by the training code)."""
    player = spec if isinstance(spec, Player) else resolve(spec, trust_checkpoint)
    return player.scalar(seed)


def build_batched(
    spec: PlayerSpec | Player | BatchAgent, seed: int | None, trust_checkpoint: bool = False
) -> BatchAgent:
    """The batched player a spec names (a :class:`BatchAgent` is used as it is); anything without a
    batched form is refused, naming the accepted players."""
    if isinstance(spec, BatchAgent):
        return spec
    if isinstance(spec, Player):
        return spec.batched(seed)
    try:
        player = resolve(spec, trust_checkpoint)
    except ValueError as exc:
        if isinstance(spec, str) and spec not in BATCH_REGISTRY and "unknown player" in str(exc):
            raise ValueError(f"{exc}; {ACCEPTED_BATCHED}") from None
        raise
    return player.batched(seed)


def batch_capable(spec: PlayerSpec | Player, trust_checkpoint: bool = False) -> bool:
    """Whether a player has a batched form (a batched baseline, or a checkpoint whose observation
    the batched engine writes)."""
    player = spec if isinstance(spec, Player) else resolve(spec, trust_checkpoint)
    return player.batch_capable


def seating_key(spec: PlayerSpec) -> str:
    """What a tournament's seating design orders a player by (:mod:`ckc_env.evaluation.seating`). A
    scripted player: its label. A checkpoint: ``checkpoints/`` and, for a safe agent file, the sha256
    of its weights, whatever path names it (``./checkpoints/x``, an absolute path, the run folder it
    was copied from), so the same agent plays the same games wherever it lies; for a trusted zip or
    an RLlib checkpoint, its path. The prefix puts every checkpoint where the shipped folders' names
    sort among the scripted players' (after ``cheater``, before ``eager``): an RLlib checkpoint and
    the agent file exported from it sit alike, and the tables published before the weights keyed
    the seats are the same games."""
    parsed = parse(spec)
    if parsed.kind not in ("checkpoint", "rllib"):
        return label(spec)
    source = locate(parsed.name)
    if source.kind != "card":
        return "checkpoints/" + label(spec)
    from .agent_file import read_card

    return "checkpoints/" + read_card(source).weights_sha256


def is_safe(spec: PlayerSpec) -> bool:
    """Whether building the player runs nothing but this package: an agent name or a safe agent file."""
    parsed = parse(spec, allow_self=True)
    if parsed.kind not in ("checkpoint", "rllib"):
        return True
    return locate(parsed.name).kind == "card"
