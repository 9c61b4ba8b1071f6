"""``checkpoint_charlie_v1`` was replaced by ``checkpoint_charlie_v2`` (see the env card's version
history): v2 deals a seed's game with the chance model the batched engine uses too, so the same
seed gives other games. Policies trained on v1 play unchanged: the observations are the same."""

raise ImportError(
    "checkpoint_charlie_v1 was replaced by checkpoint_charlie_v2 (one chance model for both engines: the same "
    "seed deals other games; observations and rules unchanged): from ckc_env import checkpoint_charlie_v2 "
    "(env card: python -m ckc_env.env_card)"
)
