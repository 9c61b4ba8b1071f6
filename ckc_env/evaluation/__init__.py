"""Evaluating players: seeded tournaments and round robins on either engine (``tournament``), who
sits where (``seating``), their results (``results``), paired comparisons (``paired``) and the
statistics of all of them, with 95% intervals (``statistics``)."""
