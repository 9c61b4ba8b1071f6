"""The game in a terminal (``ckc-play``): a person at the table (``human``), games between computer
players and replays (``play``), and replay files (``replay``: a game as its rules, seed and actions)."""
