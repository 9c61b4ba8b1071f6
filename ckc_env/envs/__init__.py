"""The environments: thin fronts over the engines, one per way a learner plugs in.

| module | front | engine |
|---|---|---|
| ``aec`` | ``checkpoint_charlie_v2``: the PettingZoo AEC environment (``ckc_env.env``, ``raw_env``; its docstring is the env card) | scalar |
| ``single_agent`` | ``CheckpointCharlie-v1``: one learner seat, the others played inside ``step()`` (gymnasium) | scalar |
| ``vector`` | the same for thousands of games at once (a gymnasium ``VectorEnv``) | batched |
| ``subproc_vector`` | the vector environment's games split across worker processes | batched |
| ``rllib`` | Ray RLlib's ``MultiAgentEnv`` (the ``rllib`` extra) | scalar |
| ``openspiel`` | the OpenSpiel game ``checkpoint_charlie`` (explicit chance nodes, ``resample_from_infostate``) and a seat for OpenSpiel bots (the ``openspiel`` extra), a package split by role | scalar |
"""
