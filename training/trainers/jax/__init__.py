"""``engine: jax``: PPO compiled whole on the device (:mod:`.trainer`), its network (:mod:`.network`),
its update (:mod:`.update`) and its state on disk (:mod:`.state`)."""
