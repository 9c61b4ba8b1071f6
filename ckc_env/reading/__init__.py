"""The readers: what a seat can infer of the hidden clues, and bayes_v1's rule that acts on it.

The scripted players (``ckc_env.agents``) decide on these readings, and the observation layouts
with beliefs encode them. Each module has a batched twin of the same name in ``ckc_env.batch``,
with the same numbers bit for bit (``tests/test_batch_agents.py``,
``tests/test_batch_players_posterior.py``, ``tests/test_batch_second_order.py``).

| module | reads | batched twin |
|---|---|---|
| ``beliefs`` | the exact posterior of a seat's information set from the cards alone; the same with each seat's clue weighed by a likelihood | ``batch/beliefs.py`` |
| ``chip_values`` | what the seat expects the next chip of each colour to be worth | ``batch/chip_values.py`` |
| ``bayes_rule`` | bayes_v1's rule: accuse the best target or pass, by a bar that moves as the others accuse | ``batch/bayes_rule.py`` |
| ``players_posterior`` | what the other players' decisions this round reveal of their clues, each read as bayes_v1's | ``batch/players_posterior.py`` |
| ``second_order`` | the same, each read as bayes_v2's (who reads the others too) | ``batch/second_order.py`` |
"""
