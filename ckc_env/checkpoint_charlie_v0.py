"""``checkpoint_charlie_v0`` was replaced by ``checkpoint_charlie_v2`` (see the env card's version
history): v1 ends Stasi games as RULES.md 6 and 7 say and adds accusation timing to the
observation. Policies trained on v0 still play: they are given v0's observation layout."""

raise ImportError(
    "checkpoint_charlie_v0 was replaced by checkpoint_charlie_v2 (Stasi end of game fixed, accusation timing "
    "in the observation): import ckc_env.checkpoint_charlie_v2 (env card: python -m ckc_env.env_card)"
)
