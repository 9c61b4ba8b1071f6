"""The rules engine: plain data and functions, no PettingZoo, gymnasium or torch.

| module | RULES.md |
|---|---|
| ``cards`` | 1 components: cats, features, clues; 3 chief and assistants |
| ``chips`` | 1 score chips, 2 the supply, 7/8 the variants' chips |
| ``options`` | reset options that fix a deal |
| ``round_setup`` | 3 round set-up |
| ``suspicion`` | 4 suspicion phase: draws, rows and discards, accusations, windows |
| ``scoring`` | 5 scoring, 6 game end, 7 Stasi chip, 8 Cafe Adler swaps |
| ``game`` | the state machine that runs them round after round |
| ``view`` | what one seat can know (read by observations and agents) |
| ``actions`` | the action table |
"""
