"""Evaluating players: seeded tournaments with seats rotated, round robins, and their statistics
with 95% intervals (``tournament``), on either engine."""
