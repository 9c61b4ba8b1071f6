"""The evaluation commands: ``ckc-evaluate`` (:mod:`.evaluate`), ``ckc-ladder`` (:mod:`.ladder`) and
``ckc-plot`` (:mod:`.plot`). They need no training extra: the core plays every safe agent file."""
