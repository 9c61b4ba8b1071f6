"""Self-play: the learner's frozen snapshots as opponents (:mod:`.self_play`) and a population of
tables drawn by prioritised fictitious self-play (:mod:`.population`)."""
