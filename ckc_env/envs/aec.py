"""
# Checkpoint Charlie: `checkpoint_charlie_v2`

| | |
|---|---|
| Import | `from ckc_env import env, raw_env` (or `from ckc_env import checkpoint_charlie_v2`) |
| Actions | Discrete(40) |
| Parallel API | no (turn-based; out-of-turn accusations happen in accusation windows) |
| Agents | `player_0` .. `player_{n-1}`, n = 3, 4 or 5 |
| Observation | `{"observation": Box(float32, ({OBS_SIZE},)), "action_mask": Box(int8, (40,))}` |
| State | Box(float32, ({STATE_SIZE},)) |

## Description

The card deduction game *Checkpoint Charlie* as specified by RULES.md: 3-5 players, rounds of
drawing cats into rows of suspects and accusing them, score chips with hidden values, the game
ending at 10 points, a colour used up or after round 5; the Stasi and Cafe Adler variants.
Each player sees only what it could see at the table.

"At any moment, even out of turn" accusations are modelled by **accusation windows**
([decision], RULES.md 4): after every resolved card each player who may still accuse gets one
decision, accuse a cat or pass, in an order set by `window_order` (with `reopen_windows`, an
accusation gives the players who passed before it one more decision). After the deck runs out the
players who have not accused must accuse, clockwise from the player after the last drawer. The
environment places cards, hands out chips and ends rounds itself, and it never asks for a
decision that has only one legal action (such as a forced accusation with a single target).

## Arguments

`env(**kwargs)` and `raw_env(**kwargs)` take the fields of `ckc_env.GameConfig` plus:

| argument | default | accepted values | meaning |
|---|---|---|---|
| `num_players` | 5 | 3, 4, 5 | seats |
| `first_player` | `"random"` | `"random"`, seat | first player of round 1 (RULES.md 2 [option]) |
| `clue_face` | `"random"` | `"random"`, `"choose"` | clue face tossed, or chosen by an action (3.1 [decision]/[option]) |
| `window_order` | `"random"` | `"random"`, `"clockwise_from_drawer"`, `"clockwise_after_drawer"` | order of an accusation window (4 [option]) |
| `reopen_windows` | False | bool | an accusation in a window gives every eligible player who passed before it one more decision (4 [option]) |
| `non_accuser_white` | `"chief_in_deck"` | `"chief_in_deck"`, `"chief_uncaught"` | when the non-accuser takes white (5 [option]) |
| `stasi` | False | bool | the Stasi officer variant (7) |
| `cafe_adler` | False | bool | the Cafe Adler variant (8) |
| `chip_pool` | see below | mapping colour -> values | base chip pool (1 [decision]/[option]) |
| `max_rounds` | 5 | 1..5 | rounds at most (extension; the rules say 5) |
| `target_points` | 10 | 1..50 | points that end the game (extension; the rules say 10) |
| `reward` | `"points"` | `"points"`, `"win"`, `"margin"` | reward scheme (below) |
| `belief_features` | False | False, True, `"players"`, `"second_order"` | append the exact beliefs (and, with `"players"`, the posterior that also reads the other players' decisions; with `"second_order"`, that one and the posterior that reads them as players who read each other) to the observation (below) |
| `summary_infos` | False | bool | put each round's summary and the agent's own chips into the infos at round ends (see "Infos") |
| `render_mode` | None | None, `"ansi"`, `"human"`, `"rgb_array"` | `render()` returns the table as text (`"ansi"`; `"human"` prints it) or as a (720, 1280, 3) uint8 picture (`"rgb_array"`, drawn by `ckc_env.picture`: Pillow, the `render` extra; `metadata["render_fps"]` is 2); any other mode, or `"rgb_array"` without Pillow, raises `UnsupportedRenderModeError`, a `ValueError` and a `TypeError` (stable-baselines3's `make_vec_env` retries without a render mode on a `TypeError`) |
| `render_seat` | None | None, seat | whose view `"rgb_array"` draws: None, the spectator (public information only: the text's table, less who is deciding; every clue and the chief once a round is scored), or a seat (its information set: also its own clue, chip values and decision) |

Rule presets: `configs/rules/{base,stasi,adler,both}.yaml`, loaded with
`GameConfig.from_yaml(path, num_players=4).to_dict()`. Unknown arguments, wrong types and values
out of range raise `ValueError` naming the argument and the accepted values.

## Action space

| id | action | legal when |
|---|---|---|
| 0 | pass | accusation window (the player has not accused and some cat can be accused) |
| 1 + c (1..32) | accuse cat c | window or forced accusation: cat c lies in a row and nobody accused it this round |
| 33 | clue face A | `clue_face="choose"`: show value A of the own tile's feature |
| 34 | clue face B | `clue_face="choose"`: show value B |
| 35 | keep | Cafe Adler: keep the hidden Adler chip |
| 36..39 | swap with seat +k (k = 1..4) | Cafe Adler: swap the chip with the player k seats clockwise |

Cat c is the 5-bit number whose bit i is set when the cat shows value A of feature i
(0 hat, 1 sunglasses, 2 trench coat, 3 newspaper, 4 grey fur). A clue is 2 * feature + side
(side 0 = value A). `ckc_env.action_to_string(a)` names an action.

## Observation space

`observation["observation"]` is a float32 vector of {OBS_SIZE}, laid out below (seats relative to
the observer: relative seat r is r places clockwise, 0 = self; seats a game does not have are
zeros, flagged in `seat_present`). `observation["action_mask"]` (int8, 40) is 1 at the legal
actions of the agent to act and all zeros for the others.

{OBSERVATION_TABLE}

With `belief_features=True` the vector is {BELIEF_SIZE} long: the pieces above, then the exact
posterior of the observer's information set (`ckc_env.reading.beliefs`: every hidden assignment of
clues consistent with the rows, discards and revealed clues is equally likely; what other players'
accusations and passes reveal is ignored), for agents that should not have to learn deduction from
scratch:

{BELIEF_TABLE}

With `belief_features="players"` the vector is {PLAYERS_SIZE} long: the pieces above, then a second
posterior that also weighs what the other players' accusations and passes this round reveal of their
clues, each of them modelled as bayes_v1 that follows its rule with probability 0.8
(`ckc_env.reading.players_posterior.PlayersReader`: every decision is judged on the table as it lay
then; the result depends on the round's public record only):

{PLAYERS_TABLE}

With `belief_features="second_order"` the vector is {SECOND_ORDER_SIZE} long: the pieces above, then a
third posterior that reads the other players' decisions as bayes_v2's, players who read each other's
decisions too (`ckc_env.reading.second_order.SecondOrderReader`: a decision of seat j is judged
under each clue j may have held by bayes_v1's rule on j's posterior weighted by what the decisions j
had seen revealed, those read as above), the reading of the scripted player `bayes_v3`:

{SECOND_ORDER_TABLE}

Every layout a version of this environment has used stays declared in
`ckc_env.observation.LAYOUTS` (v0: the same pieces without `accusation_cards`, 731 numbers or 845
with beliefs), so a policy trained on an older layout is given its observations in that layout.

## State

`state()` returns the full state for centralised critics: the public pieces as seen from seat 0
(seats absolute; `decision` is the acting seat's) plus every hidden piece:

{STATE_TABLE}

For an asymmetric critic on the batched engine, `CheckpointCharlieVectorEnv(critic_state=True)`
appends the hidden pieces to each learner's observation with seats relative to the learner, as the
observation orders them ({CRITIC_STATE_SIZE} numbers after the observation's; training/trainers/sb3/state_critic.py
trains a policy that never reads them):

{CRITIC_STATE_TABLE}

## Rewards

- `reward="points"` (default): the change of each player's points as chips change hands: a chip's
  value when its owner receives it, the difference of values in a Cafe Adler swap (for both
  players), and the Stasi chip's -2 while it is held (RULES.md 7): -2 when it is taken, +2 when it
  goes back into the supply (in the same step unless a Cafe Adler decision comes between), kept if
  the game ends. An agent's rewards over the game sum to its final points.
- `reward="win"`: 0 until the game ends; then the winners share +1 and the others share -1.
- `reward="margin"`: each change of points less the mean of the other players' changes: over the
  game, the agent's final points less the others' mean (a dense signal for beating them).

The schemes are defined once for every front and both engines (`ckc_env.table.rewards`).

## Starting state

`reset(seed, options)`: chips shuffled, first player drawn (or fixed), round 1 dealt; the env
runs to the first decision. `options` fixes parts of the deal for tests and tutorials:

| key | value |
|---|---|
| `first_player` | seat of round 1's first player |
| `deck` | round 1's deck, top first: cats 0..31 once each and 5-n investigator cards as id 32, which must lie in the top 16+(5-n) |
| `tiles` | the feature of each seat's tile |
| `clues` | each seat's clue (2*feature+side); not with `clue_face="choose"` |
| `bag` | the clues of the tiles left in the bag, in the order investigator cards reveal them |
| `rounds` | a list of mappings with the keys `deck`, `tiles`, `clues`, `bag` for rounds 1, 2, ... |
| `chip_order` | colour -> chip tokens in the order they are taken (values, `"stasi"`, `"adler"`) |

An inconsistent option raises `ValueError` saying why. Keys the environment does not know are
ignored, as gymnasium environments ignore options they do not use (PettingZoo's `api_test` passes
`{"options": 1}`); beside known keys, where they are most likely misspelt, they are ignored with a
warning naming the accepted keys.

## Episode end

The game ends after a round's scoring (and swaps) when a player has 10 points or more (a held
Stasi chip counting -2), a chip colour's supply is used up (empty after the hand-out, or a player
due that colour got none), or the fifth round has been played. All agents are then terminated;
there is no truncation.

## Infos

By default every info is an empty dict at every step, as in PettingZoo's classic games: the
batching collectors of multi-agent libraries (Tianshou's among them) stack infos step by step and
need the same keys with the same shapes every time. The round summaries are always reachable
without them: `raw_env.round_summaries` (through `env.unwrapped` under the wrappers) is the list of
the game's summaries so far, a fresh copy on every call, and `raw_env.player_view(agent)` gives an
agent's own chips (`own_chip_values`).

With `summary_infos=True` (for people and tools that read the game step by step: the tests, the
playthrough files), when a round ends every agent's info holds `round_summary` and `own_chips`
(the agent's own chip values and points: nobody else's values). The info is kept until the agent
acts. The summary is one object shared by all agents' infos: read it, copy it before changing it.
It is the public record of the round (`ckc_env.engine.summary`):

{SUMMARY_TABLE}

## Reading the table

- `raw_env.player_view(agent)`: what the agent can know at the table, as the engine's read-only
  `PlayerView` (own clue and chips, rows, discards, accusations, chip colours, public clues): what
  the scripted players read.
- `raw_env.beliefs(agent)`: the exact posterior of the agent's information set
  (`chief`, `assistant`, `innocent`: 32 probabilities each; `clue`: a 10-way distribution per seat).
- `raw_env.game`: the engine's whole `GameState` (hidden clues, deck, chip values included), for
  tools, tests and replays; an agent reading it is cheating.

## Illegal actions

`raw_env.step` raises `ValueError` naming the agent, the action and the legal actions, and
changes nothing. `env()` is `raw_env` with the checks of PettingZoo's classic wrappers folded in
(`CheckedEnv`; the same behaviour as the wrapper layers, at less than half their cost per step):
`TerminateIllegalWrapper(illegal_reward=-1)`'s (an illegal action ends the game: the offender gets
-1 for that step, the others 0, rewards already given stand), `AssertOutOfBoundsWrapper`'s (an
action outside Discrete(40) raises `ActionOutOfRangeError`, both an `AssertionError` and a
`ValueError`, naming the action and the legal ones) and `OrderEnforcingWrapper`'s (reset before
use; `agent_iter` gives the next agent only after a step). Misuse is named too: `step`, `observe`
or `last` before `reset()` (`RuntimeError`), and `step` after every agent has been stepped out
of a finished game (`RuntimeError`: call `reset()`). The illegal-action ending is declared once
for every front (`ckc_env.table.illegal`).

## Rule decisions

RULES.md's [decision]s, as implemented:
- 1: default chip pool: gold 3, 3, 4, 4, 5; white 1 x6, 2 x6; black 0 x4, -1 x4 (configurable);
- 3.1: the clue face is tossed at random by default (`clue_face="choose"` makes it an action);
- 4: accusation windows after every resolved card (an investigator card is resolved when its
  clue is revealed, before the redraw); the last card has its window before the forced
  accusations; eligibility is re-checked at each turn in the window;
- 4: forced accusations go clockwise from the player after the one who drew the last card;
- 5: a tile still in the bag is tossed at round set-up and kept hidden until scoring reveals it
  (what RULES.md allows for tossing it "now");
- 6: a colour is used up when its supply is empty after the round's hand-out or a player due it got
  none, judged before the Stasi chip goes back (its return does not undo a used-up black supply);
- 7: order within a scoring phase: hand-out, Cafe Adler decisions, end check, and only if the game
  goes on the Stasi chip goes back into the black supply (else its taker keeps it, -2); while held
  it lies face-up, cannot be taken in a Cafe Adler swap, and counts -2 at the end check;
- 8: each Cafe Adler chip is worth the chip it replaced: gold 3, white 1, black -1.

RULES.md's [option]s, each an argument above with the stated default: `chip_pool` (1),
`first_player` (2), `clue_face` (3.1), `window_order` (4), `reopen_windows` (4),
`non_accuser_white` (5).

Decisions of this environment where RULES.md is silent:
- several non-accusers (possible only when targets run out on an empty deck) take their chips
  after the accusers, clockwise after the last drawer;
- Cafe Adler decisions come after the hand-out, seat by seat clockwise from the round's first
  player, once for each hidden Adler chip a seat holds at its turn (one with no possible swap is
  not asked);
- `reopen_windows`: the players owed a decision are asked once the window's order is through, in
  that order; accusations made before such a decision are all answered by it.

## Libraries

Each library's own documented entry point takes the environment unchanged, and a test runs it
(`tests/test_libraries.py`, `tests/test_rllib.py`; a test skips where its library is not
installed; `.ci/run` installs them all, with the `tianshou`, `torchrl`, `rllib` and `openspiel`
extras):

| library | entry point | run by |
|---|---|---|
| PettingZoo 1.27 | `api_test`, `seed_test`, `render_test` and the bombardment test on `env()` | `tests/test_pettingzoo_api.py` |
| Gymnasium, stable-baselines3 2.9 | `CheckpointCharlie-v1` (the single-agent view, registered by `import ckc_env`): gymnasium's and SB3's env checkers, `make_vec_env` with `DummyVecEnv` and `SubprocVecEnv` (its workers find the id when the script imports `ckc_env`, or by `"ckc_env:CheckpointCharlie-v1"`), MaskablePPO | `tests/test_libraries.py`, `tests/test_single_agent.py`, `ckc-train` |
| Tianshou 2.0 | `PettingZooEnv(env())`, `MultiAgentPolicy` and `Collector` | `examples/tianshou_random.py` |
| TorchRL 0.14 | `PettingZooWrapper(env(), use_mask=True)`, `check_env_specs`, a rollout of legal actions | `examples/torchrl_rollout.py` |
| Ray RLlib 2.60 | `ckc_env.envs.rllib`: the `MultiAgentEnv` registered as `"checkpoint_charlie"` (RLlib's masking convention, `{"observations", "action_mask"}`), RLlib's env checker, PPO with its `ActionMaskingTorchRLModule`; checkpoints play as player specs | `examples/rllib_ppo.py`, `tests/test_rllib.py`, `ckc-rllib-train` |
| OpenSpiel 2.0 | `ckc_env.envs.openspiel`: the Python game `"checkpoint_charlie"` registered with pyspiel (explicit chance nodes, observation and information-state tensors, `resample_from_infostate`), `pyspiel.random_sim_test`, `ISMCTSBot` in OpenSpiel's loop and as a tournament seat | `examples/openspiel_ismcts.py`, `tests/test_openspiel.py` |

Batching collectors need infos with the same keys every step: hence the empty default infos
(see "Infos"); TorchRL's wrapper drops infos in any case. RLlib's own `PettingZooEnv` wrapper
also takes `env()`, but its PPO has no default encoder for a Dict observation: `ckc_env.envs.rllib`
gives the observation in the form RLlib's masking module reads.

## Known modelling limits

- Whose turn it is is public (`agent_selection`): in the Cafe Adler phase it shows who holds a
  hidden Cafe Adler chip that could be swapped, which at the table a player could keep to
  themselves. The chip's colour and value stay hidden.

## Version history

- v2 (later): `render_mode="rgb_array"`, pictures of what the spectator or `render_seat` may see
  (`ckc_env.picture`, the `render` extra), for `gymnasium.wrappers.RecordVideo`, stable-baselines3's
  `VecVideoRecorder` and `ckc-play --replay FILE --video out.mp4`.
- v2: one chance model for the scalar and the batched engine (`ckc_env.engine.chance`): a seed deals
  the same game on both, in any batch, so tournaments give the same per-game results on either
  engine; the scripted players and sampling policies draw their random choices the same way on
  both. The same seed therefore deals other games than under v1; the observations, actions and
  rules are unchanged (a policy trained under v1 plays under v2 as it did, its card naming its
  layout). The `"margin"` reward; a window in which nobody can accuse draws no random order.
- v1 (later): infos are empty unless `summary_infos=True` (the round summaries are always in
  `round_summaries`), so that batching collectors (Tianshou's) accept them; an unsupported
  `render_mode` raises an error that is also a `TypeError` (stable-baselines3's `make_vec_env`
  retries without it); reset options made only of keys the environment does not know are ignored
  without a warning (PettingZoo's `api_test` passes one).
- v1: Stasi games end as RULES.md 6 and 7 say (the end is checked before the Stasi chip goes back;
  its taker holds it, face-up and worth -2, until then); the `reopen_windows` option; the
  observation gains `accusation_cards` ({OBS_SIZE} numbers, {BELIEF_SIZE} with beliefs); round
  summaries gain the drawn cards and each accusation's timing; `player_view()` and `beliefs()`.
- v0: initial release (with the `belief_features` observation option).
"""

from __future__ import annotations

import operator
import pickle
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.env_logger import EnvLogger

from ..agents.base import LazyObservation
from ..config import GameConfig
from ..engine import summary as summary_module
from ..engine.actions import N_ACTIONS, action_to_string
from ..engine.state import GameState
from ..engine.view import PlayerView
from ..files import short
from ..observation import (
    CRITIC_STATE,
    ENV_VERSION,
    LAYOUTS,
    OBSERVATION,
    OBSERVATION_WITH_BELIEFS,
    OBSERVATION_WITH_PLAYER_BELIEFS,
    OBSERVATION_WITH_SECOND_ORDER,
    STATE,
    encode_state,
)
from ..reading.beliefs import Beliefs, beliefs
from ..render import RENDER_FPS, RENDER_MODES, check_render_mode, check_render_seat, render
from ..table import illegal, options, rewards
from ..table.scalar import Table

__doc__ = (
    __doc__.replace("{OBSERVATION_TABLE}", OBSERVATION.markdown_table())
    .replace("{STATE_TABLE}", STATE.markdown_table())
    .replace("{OBS_SIZE}", str(OBSERVATION.size))
    .replace("{BELIEF_SIZE}", str(OBSERVATION_WITH_BELIEFS.size))
    .replace("{BELIEF_TABLE}", OBSERVATION_WITH_BELIEFS.markdown_table(start=OBSERVATION.size))
    .replace("{PLAYERS_SIZE}", str(OBSERVATION_WITH_PLAYER_BELIEFS.size))
    .replace("{PLAYERS_TABLE}", OBSERVATION_WITH_PLAYER_BELIEFS.markdown_table(start=OBSERVATION_WITH_BELIEFS.size))
    .replace("{SECOND_ORDER_SIZE}", str(OBSERVATION_WITH_SECOND_ORDER.size))
    .replace(
        "{SECOND_ORDER_TABLE}",
        OBSERVATION_WITH_SECOND_ORDER.markdown_table(start=OBSERVATION_WITH_PLAYER_BELIEFS.size),
    )
    .replace("{STATE_SIZE}", str(STATE.size))
    .replace("{CRITIC_STATE_TABLE}", CRITIC_STATE.markdown_table())
    .replace("{CRITIC_STATE_SIZE}", str(CRITIC_STATE.size))
    .replace("{SUMMARY_TABLE}", summary_module.__doc__.split("\n\n", 2)[2].strip().replace("``", "`"))
)


def env(**kwargs: Any) -> AECEnv:
    """The environment with the checks of PettingZoo's classic wrappers (see "Illegal actions")."""
    return CheckedEnv(**kwargs)


class ActionOutOfRangeError(ValueError, AssertionError):
    """An action outside Discrete(40). An AssertionError, as PettingZoo's ``AssertOutOfBoundsWrapper``
    raises, and a ValueError, as the environment raises for every other bad action."""


class raw_env(AECEnv):
    """Checkpoint Charlie as a PettingZoo AEC environment (the module docstring is the env card)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "checkpoint_charlie_v2",
        "render_modes": list(RENDER_MODES),
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        render_seat: int | None = None,
        reward: str = "points",
        belief_features: bool = False,
        summary_infos: bool = False,
        **rules: Any,
    ) -> None:
        super().__init__()
        check_render_mode(render_mode)
        options.flag("summary_infos", summary_infos)
        scheme = rewards.scheme(reward)
        options.belief_features(belief_features)
        unknown = sorted(set(rules) - set(GameConfig.fields()))
        if unknown:
            accepted = [
                "render_mode",
                "render_seat",
                "reward",
                "belief_features",
                "summary_infos",
                *GameConfig.fields(),
            ]
            raise ValueError(f"unknown argument(s) {short(unknown)}: accepted arguments are {accepted}")
        self.config = GameConfig(**rules)
        self.render_mode = render_mode
        self.render_seat = check_render_seat(render_seat, self.config.num_players)
        self.reward_scheme = reward
        self.belief_features = belief_features
        self.summary_infos = summary_infos
        self.observation_layout = LAYOUTS[ENV_VERSION][belief_features]
        self.table = Table(self.config, self.observation_layout, scheme)
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents: list[str] = []
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = self.observation_layout.bounds()
        self.action_spaces = {agent: spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        state_low, state_high = STATE.bounds()
        self.state_space = spaces.Box(low=state_low, high=state_high, dtype=np.float32)
        self.rewards = {}
        self._cumulative_rewards = {}
        self.terminations = {}
        self.truncations = {}
        self.infos = {}

    @property
    def game(self) -> GameState | None:
        """The engine's whole state of the current game (None before ``reset``)."""
        return self.table.game

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        game = self.table.deal(seed, options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._summaries_seen = 0
        self.agent_selection = self.possible_agents[game.current_seat]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._started()
        seat = self._seat[agent]
        return {"observation": self.table.observation(seat), "action_mask": self.table.action_mask(seat)}

    def observe_lazily(self, agent: str) -> LazyObservation:
        """``observe(agent)`` with the vector encoded only when read (for scripted players)."""
        self._started()
        return self.table.lazy_observation(self._seat[agent])

    def state(self) -> np.ndarray:
        return encode_state(self._started())

    def player_view(self, agent: str) -> PlayerView:
        """What ``agent`` can know at the table (its own clue and chips, everything public), as
        the engine's read-only :class:`~ckc_env.engine.view.PlayerView`: what scripted players read."""
        if agent not in self._seat:
            raise ValueError(f"unknown agent {short(agent)}: the agents are {self.possible_agents}")
        return PlayerView(self._started(), self._seat[agent])

    def beliefs(self, agent: str) -> Beliefs:
        """The exact posterior of ``agent``'s information set over the round's hidden clues
        (:mod:`ckc_env.reading.beliefs`: ``chief``, ``assistant``, ``innocent`` per cat, ``clue`` per seat)."""
        return beliefs(self.player_view(agent))

    @property
    def round_summaries(self) -> list[dict[str, Any]]:
        """The public record of every round played so far (``ckc_env.engine.summary``), a fresh copy
        on every call: the same summaries ``summary_infos=True`` puts into the infos."""
        return pickle.loads(pickle.dumps(self._started().summaries, protocol=pickle.HIGHEST_PROTOCOL))

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._started()
        return super().last(observe)

    def step(self, action: int | None) -> None:
        game = self._started()
        agent = self.agent_selection
        if agent not in self.terminations:
            raise RuntimeError(
                "the game is over and every agent has been stepped out of it (step(None) after the end): "
                "call reset() to play again"
            )
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:  # ints, NumPy integers and 0-d integer arrays, as gymnasium's Discrete accepts
            index = -1 if isinstance(action, (bool, np.bool_)) else operator.index(action)
        except TypeError:
            index = -1
        if index < 0 or not self.table.is_legal(index):
            raise illegal.refusal(action, agent, self.table.legal_text())
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {}
        # Every agent is live until the game ends, when all end at once: seats index possible_agents.
        gained = self.table.apply(index)  # checked above
        if gained is not None:
            self.rewards = {a: float(r) for a, r in zip(self.possible_agents, gained, strict=True)}
            self._accumulate_rewards()
        else:  # most steps: nothing to add
            self.rewards = dict.fromkeys(self.possible_agents, 0.0)
        if self.summary_infos and len(game.summaries) > self._summaries_seen:
            self._summaries_seen = len(game.summaries)
            # One copy for the agents, shared by all their infos (read-only); the game keeps its own.
            summary = pickle.loads(pickle.dumps(game.summaries[-1]))
            for a in self.agents:
                values = PlayerView(game, self._seat[a]).own_chip_values
                self.infos[a] = {"round_summary": summary, "own_chips": {"values": values, "points": sum(values)}}
        if game.game_over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.current_seat]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        return render(self._started(), self.render_mode, self.render_seat)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def _started(self) -> GameState:
        if self.table.game is None:
            raise RuntimeError("the environment has not been reset: call reset() first")
        return self.table.game

    def action_to_string(self, action: int) -> str:
        return action_to_string(action)


class CheckedEnv(raw_env):
    """``raw_env`` with the checks of PettingZoo's classic wrappers folded in, in their order:
    ``OrderEnforcingWrapper`` (reset before use, ``agent_iter`` steps between agents),
    ``AssertOutOfBoundsWrapper`` (an action outside Discrete(40) raises :class:`ActionOutOfRangeError`,
    naming the action and the legal ones) and ``TerminateIllegalWrapper(illegal_reward=-1)`` (an
    illegal action ends the game: ``ckc_env.table.illegal``'s rule). The same behaviour as the
    three wrapper layers, without their attribute delegation on every call, which cost more than
    a step of the game itself."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._has_reset = False
        self._has_updated = False
        self._terminated = False  # ended by an illegal action

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._terminated = False
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super().observe(agent)

    def state(self) -> np.ndarray:
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return super().state()

    def render(self) -> str | np.ndarray | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderedIterable(self, max_iter)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = self.agent_selection
        done = self.terminations[agent] or self.truncations[agent]
        in_range = type(action) is int and 0 <= action < N_ACTIONS  # the common case, checked fast
        if not in_range and not (action is None and done) and not self.action_spaces[agent].contains(action):
            legal = "none: the agent is done, step(None)" if done else self.table.legal_text()
            raise ActionOutOfRangeError(
                f"action {short(action)} is out of range for {agent}: actions are integers 0..{N_ACTIONS - 1} "
                f"(see the env card's action table); legal now: {legal}"
            )
        if done:
            if self._terminated:
                self._was_dead_step(action)
                return
            super().step(action)
            return
        if not self.table.is_legal(int(action)):  # TerminateIllegalWrapper: the game ends there
            EnvLogger.warn_on_illegal_move()
            self._cumulative_rewards[agent] = 0
            self.terminations = dict.fromkeys(self.agents, True)
            self.truncations = dict.fromkeys(self.agents, True)
            self.rewards = illegal.rewards(agent, self.truncations)
            self._accumulate_rewards()
            self._deads_step_first()
            self._terminated = True
            return
        super().step(action)


class _OrderedIterable(AECIterable):
    def __iter__(self) -> AECIterator:
        return _OrderedIterator(self.env, self.max_iter)


class _OrderedIterator(AECIterator):
    """``agent_iter`` as ``OrderEnforcingWrapper`` gives it: each agent must be stepped (or the env
    reset) before the next one is given."""

    def __next__(self) -> str:
        agent = super().__next__()
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return agent
