"""``ckc-rllib-train``'s trainer: Ray RLlib's PPO on the game's shared module (:mod:`.trainer`)."""
