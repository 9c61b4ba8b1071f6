"""The training commands: ``ckc-train`` (:mod:`.train`), ``ckc-train-pipeline`` (:mod:`.pipeline`),
``ckc-best-response`` (:mod:`.best_response`), ``ckc-export`` (:mod:`.export`), ``ckc-rllib-train``
(:mod:`.rllib`), and the searches behind the scripted players' parameters (:mod:`.tune_bayes`,
:mod:`.tune_by_count`); what they all check first (:mod:`.checks`)."""
