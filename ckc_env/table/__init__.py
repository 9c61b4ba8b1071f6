"""The table: what every front shares between the engines and its own API.

| module | owns |
|---|---|
| ``options`` | the table's options (player counts, learner seat, opponents by count, reward, belief features, rules), each checked by one rule |
| ``rewards`` | the reward schemes (``points``, ``margin``, ``win``), written once for Python numbers and NumPy arrays; :func:`~ckc_env.table.rewards.scheme` chooses a front's from its ``reward`` |
| ``illegal`` | what an illegal action does at every front: the penalty, the ending, the info key, the refusal's message |
| ``scalar`` | :class:`~ckc_env.table.scalar.Table`: a game on the scalar engine dealt, observed, stepped, rewarded, and the loop that plays the other seats |
| ``batched`` | the same on the batched engine: the seats' rewards and the loop in which each batched player decides for all its games at once |

The fronts (``ckc_env.envs``) and the tournaments (``ckc_env.evaluation``) are built on it; none
of them builds another front.
"""
