"""``engine: sb3``: stable-baselines3's MaskablePPO on the CPU (:mod:`.trainer`), the batched engine
as its ``VecEnv`` (:mod:`.vec_env`) and the asymmetric critic (:mod:`.state_critic`)."""
