"""The single-agent view over the batched engine: thousands of learner seats stepped in one call.

``CheckpointCharlieVectorEnv`` is :class:`~ckc_env.envs.single_agent.CheckpointCharlieSingleAgent` for
``num_envs`` games at once, as a ``gymnasium.vector.VectorEnv`` over :mod:`ckc_env.batch`: each
slot's learner holds one seat; the other seats are played inside ``step()`` by batched players,
every player deciding for all the games where it is to act in one call. The rewards and episodes
are the single-agent view's (the same reward schemes, the same illegal-action rule), and
``action_masks()`` gives the learner's legal actions for MaskablePPO. Stable-baselines3 takes it
through ``ckc_env.training.trainers.sb3.vec_env.SB3VecEnv``.

| | |
|---|---|
| Observation | (num_envs, 736) float32, each slot's learner observation; (num_envs, 850) with ``belief_features=True``, (num_envs, 964) with ``belief_features="players"``, 1078 with ``"second_order"``; 189 more with ``critic_state=True`` (below) |
| Action | (num_envs,) of Discrete(40), the env card's action table; ``action_masks()`` is (num_envs, 40) bool |
| Reward | as the single-agent view: ``"points"``, ``"win"`` or ``"margin"``, everything the learner earned since its previous decision |
| Episode end | the game's end (``terminations``); never truncated. Autoreset ``SAME_STEP``: the observation returned is the next game's first; the last one is ``infos["final_obs"]`` (``"_final_obs"`` marks the slots), ``infos["final_info"]`` holds ``points``, ``margin`` (points less the mean of the others'), ``win_share``, ``is_winner`` and ``illegal_action`` |
| Illegal action | ends that slot's game at once (``ckc_env.table.illegal``) with reward ``illegal_penalty`` (default -1), ``final_info["illegal_action"]`` True |

Opponents must have a batched form: the names of ``ckc_env.batch.agents.BATCH_REGISTRY``
(``random``, ``passive``, ``eager``, ``bayes_v1``, ``bayes_v2``, ``bayes_v3``, ``cheater``, with parameters as
specs allow) and checkpoints (safe agent files, also those reading the players' posterior; a
stable-baselines3 zip with ``trust_checkpoint``), which decide with one forward pass of their NumPy
network per batch. Anything else (an RLlib checkpoint) is refused at construction with the accepted
players named. Every decision an opponent (or the ``duplicate`` reference) makes is checked before
the engine applies it (``ckc_env.table.batched.check_actions``): one that is not a legal action of
its game raises ``ValueError`` naming the player, the game (its slot), the seat, the action and the
legal actions; only the learner's illegal actions end a game with the penalty.

With ``belief_features="players"`` each slot's learner reads the other players' decisions through a
:class:`~ckc_env.batch.players_posterior.PlayersReader` brought up to date whenever the learner is
observed, as the scalar table keeps a ``PlayersReader`` per seat; with ``"second_order"`` also
through a :class:`~ckc_env.batch.second_order.SecondOrderReader` (bayes_v3's reading).

``num_players`` is a count or a list of counts: each slot's game is dealt a count drawn uniformly
from the list at every reset. ``opponents`` is one spec for every other seat, a list of n-1 specs in
seat order after the learner, or a mapping ``{count: spec or list}``.

**A population of tables.** ``population=[members]`` (with ``population_weights``, default equal)
plays, in each slot, a table drawn at every deal from the members, each an ``opponents`` value as
above (one spec, a list of n-1, or a mapping by count); the draws come from the environment's
``np_random``, so the reset seed fixes them. Every member is checked and loaded once, with the
errors of ``opponents``, and a player two members share is one batched player.
``set_population(members, weights=None)`` replaces the population while the games go on (self-play
adds snapshots of the learner as it trains): each slot keeps the table it plays until its next deal,
which is drawn from the new population; members already loaded are reused (a member is known by its
specs' labels). ``SubprocVectorEnv.set_population`` sends it to every worker, and stable-baselines3's
``env_method("set_population", ...)`` reaches it through ``SB3VecEnv``.

**Duplicate rewards.** ``duplicate=spec`` (a player with a batched form) plays every deal a second
time, out of sight, with that player in the learner's seat and the same opponents (the same deal,
the same opponents' streams: bridge's duplicate scoring), and takes what it earned there from the
learner's reward at the game's end: the learner's return becomes its return less the reference's on
the same deal. The reference's return does not depend on the learner's actions, so the expected
policy gradient is unchanged, and the luck of the deal cancels as far as the two play alike: for a
clone of bayes_v2 with bayes_v2 as the reference, the variance of the win reward's returns falls
from 0.28 to 0.17 (docs/agents.md); between two close scripted players a paired
tournament's interval narrows about fourfold. Each
finished game's ``final_info["baseline"]`` holds the reference's return; ``points``, ``margin``,
``win_share`` stay the learner's own.

**A state for the critic.** ``critic_state=True`` appends to each observation the hidden pieces of
the game seen from the learner's seat (``ckc_env.observation.CRITIC_STATE``, 189 numbers: every
seat's clue, the bag's faces, the chief, the deck's cats, every seat's chip values and points), for
an asymmetric actor-critic: a value network may read them, a policy must read only the first
``layout.size`` numbers (``training/trainers/sb3/state_critic.py`` builds such a policy; its exported agent file
reads the plain observation). Off by default: an observation never holds them otherwise.

Infos: ``seat`` and ``num_players`` (num_envs,) of the game each slot now plays; with a population
also ``opponents``, the index of each slot's member in the current population, and
``final_info["opponents"]`` the member a finished game was played against (-1 for a member that
``set_population`` has since removed), so a learner can score the members. Round summaries are not
copied out (``batch.summary.round_summaries`` gives them from ``env.state``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .. import batch, players
from ..batch.agents import BatchAgent, seat_keys
from ..batch.observation import encode_critic_state
from ..batch.second_order import LayoutReaders
from ..batch.state import BatchState, stack
from ..engine.actions import N_ACTIONS
from ..observation import CRITIC_STATE, ENV_VERSION, LAYOUTS
from ..render import UnsupportedRenderModeError
from ..seeding import derive_seed
from ..table import illegal, options, rewards
from ..table.batched import game_returns, play, seat_rewards
from .slot_calls import SlotCalls


# ---------------------------------------------------------------------- the vector environment
class CheckpointCharlieVectorEnv(SlotCalls, gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent games over the batched engine (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 (gymnasium's convention)

    def __init__(
        self,
        num_envs: int,
        opponents: Any = "bayes_v1",
        learner_seat: int | str = "random",
        belief_features: bool | str = False,
        reward: str = "points",
        illegal_penalty: float = illegal.PENALTY,
        trust_checkpoint: bool = False,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        render_mode: None = None,
        population: Sequence[Any] | None = None,
        population_weights: Sequence[float] | None = None,
        duplicate: Any = None,
        critic_state: bool = False,
        **rules: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            options.fail("num_envs", num_envs, "integers >= 1")
        if render_mode is not None:
            raise UnsupportedRenderModeError(
                f"invalid render_mode={render_mode!r}: the vector environment renders nothing (its games are "
                "arrays of the batched engine); record videos on the single-agent view, "
                "CheckpointCharlie-v1 with render_mode='rgb_array'"
            )
        modes = {m.value: m for m in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)}
        mode = modes.get(getattr(autoreset_mode, "value", autoreset_mode))
        if mode is None:
            options.fail("autoreset_mode", autoreset_mode, f"AutoresetMode.SAME_STEP or NEXT_STEP ({list(modes)})")
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.scheme = rewards.scheme(reward)
        options.belief_features(belief_features, batched=True)
        self.counts = list(options.player_counts(rules.pop("num_players", 5)))
        self.configs = options.game_configs(rules, self.counts)
        self.config = self.configs[self.counts[0]]
        options.learner_seat(learner_seat, self.counts)
        self.trust_checkpoint = trust_checkpoint
        self._loaded: dict[str, Any] = {}  # every spec checked and loaded once (by its label); refused now
        self.population_mode = population is not None
        if population is None:
            if population_weights is not None:
                options.fail("population_weights", population_weights, "None without a population")
            self._set_members([self._member(opponents, "opponents")], np.ones(1))
        else:
            self._set_members(*self._check_population(population, population_weights))
        self.opponent_specs = self._members[0][2]
        self.duplicate = duplicate
        self._reference = None
        if duplicate is not None:
            reference = self._load_table({0: [duplicate]})[0][0]
            self._reference = reference if isinstance(reference, BatchAgent) else reference.batched(0)
        self._shadows: dict[int, tuple[BatchAgent, BatchAgent]] = {}  # a table player's twin, by id
        self.num_envs = int(num_envs)
        self.learner_seat_option = learner_seat
        self.reward = self.scheme.name
        self.illegal_penalty = float(illegal_penalty)
        self.belief_features = belief_features
        self.layout = LAYOUTS[ENV_VERSION][belief_features]
        self._readers = LayoutReaders(self.layout)
        low_bounds, high_bounds = self.layout.bounds()
        if not isinstance(critic_state, (bool, np.bool_)):
            options.fail("critic_state", critic_state, "True or False")
        self.critic_state = bool(critic_state)
        if self.critic_state:
            state_low, state_high = CRITIC_STATE.bounds()
            low_bounds, high_bounds = np.concatenate([low_bounds, state_low]), np.concatenate([high_bounds, state_high])
        self.single_observation_space = spaces.Box(low=low_bounds, high=high_bounds, dtype=np.float32)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.state: BatchState | None = None
        self.seat = np.zeros(self.num_envs, dtype=np.int64)
        self.member = np.zeros(self.num_envs, dtype=np.int64)  # each slot's table, an index into _tables
        self._pending = np.zeros(self.num_envs)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Deal a new game in every slot; ``seed`` fixes the deals, seats and opponents' draws."""
        if options:
            raise ValueError(f"the vector environment takes no reset options, got {sorted(options)}")
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**63))
        self._build_players(seed)
        counts = self._draw_counts(self.num_envs)
        self.state = batch.init(
            self.config, seed=derive_seed(seed, "deal"), batch_size=self.num_envs, num_players=counts
        )
        self.seat = self._draw_seats(self.state.n.astype(np.int64))
        self.member = self._draw_members(self.num_envs)
        self._start_players(np.arange(self.num_envs))
        self._pending = np.zeros(self.num_envs)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._baseline = np.zeros(self.num_envs)
        self._unplayed = np.zeros(self.num_envs, dtype=bool)
        self._dealt = np.zeros(self.num_envs, dtype=np.int64)
        self._deal_serial, self._queue, self._queued_games = 0, [], 0
        self._deal_duplicates(np.arange(self.num_envs))
        self._settle(np.arange(self.num_envs), self._pending)
        return self._observe(), self._info()

    def step(self, actions: np.ndarray):
        if self.state is None:
            raise RuntimeError("step() before reset(): call reset() first")
        state = self.state
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be integers of shape ({self.num_envs},), got {actions.dtype} {actions.shape}"
            )
        resetting = self._autoreset  # NEXT_STEP: the slots whose game ended last step start anew, actions ignored
        if resetting.any():
            self._restart(np.flatnonzero(resetting))
        mask = batch.legal_action_mask(state)
        inside = (actions >= 0) & (actions < N_ACTIONS)
        legal = inside & (mask[np.arange(self.num_envs), np.where(inside, actions, 0)] == 1) & ~resetting
        paid = np.where(resetting, 0.0, self._pending)
        self._pending[~resetting] = 0.0
        moving = np.flatnonzero(legal)
        batch.apply(state, actions, games=moving)
        paid += self._collect()
        self._play_others(paid)
        offending = ~legal & ~resetting
        paid[offending] = self.illegal_penalty  # the illegal-action ending
        terminated = (offending | state.game_over) & ~resetting
        if self._reference is not None:
            if self._unplayed[terminated].any():
                self._play_duplicates()
            paid[terminated] -= self._baseline[terminated]
        infos = self._info()
        ended = np.flatnonzero(terminated)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            if len(ended):
                infos.update(self._final_info(terminated, offending))
            self._autoreset = terminated.copy()
        elif len(ended):
            final_obs = self._observe()  # the finished games, before their slots are dealt again
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
            for b in ended:
                infos["final_obs"][b] = final_obs[b]
            infos["_final_obs"] = terminated.copy()
            infos["final_info"] = self._final_info(terminated, offending)
            infos["_final_info"] = terminated.copy()
            self._restart(ended)
            infos.update(self._info())
        return self._observe(), paid, terminated, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 40) bool: each slot learner's legal actions; with ``NEXT_STEP`` autoreset, every
        action for a slot whose game just ended (its next step starts a new game and ignores it)."""
        if self.state is None:
            raise RuntimeError("action_masks() before reset(): call reset() first")
        masks = batch.legal_action_mask(self.state).astype(bool)
        masks[self._autoreset] = True
        return masks

    def set_population(self, members: Sequence[Any], weights: Sequence[float] | None = None) -> None:
        """Play tables drawn from ``members`` (``weights``: their sampling weights, default equal)
        from each slot's next deal on; the games in progress finish with the table they have. A
        member given before (the same specs) keeps its loaded players; the new ones are checked and
        loaded now, and a refusal leaves the population as it was."""
        checked = self._check_population(members, weights)
        self.population_mode = True
        self._set_members(*checked)
        if self.state is not None:
            self._keep_tables_in_play()
            self._index_players()

    def close(self, **kwargs: Any) -> None:
        self.state = None

    # ------------------------------------------------------------------ internals: the population
    def _check_population(
        self, members: Any, weights: Any
    ) -> tuple[list[tuple[tuple, dict[int, list[Any]], dict[int, list[Any]]]], np.ndarray]:
        """Each member's (key, loaded players by count, specs by count) and the sampling probabilities,
        checked (ValueError naming the member or the weights and what is accepted)."""
        accepted = "a non-empty list of opponents tables (each one spec, a list of n-1 specs or {count: ...})"
        if isinstance(members, (str, bytes, Mapping)) or not isinstance(members, Sequence) or not members:
            options.fail("population", members, accepted)
        checked = [self._member(member, f"population[{i}]") for i, member in enumerate(members)]
        if weights is None:
            return checked, np.full(len(members), 1.0 / len(members))
        given = np.asarray(weights, dtype=object)
        numbers = given.ndim == 1 and all(
            isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, (bool, np.bool_)) for w in given
        )
        values = np.asarray(given, dtype=np.float64) if numbers else None
        if values is None or len(values) != len(members) or not np.isfinite(values).all() or (values < 0).any():
            options.fail("population_weights", weights, f"{len(members)} finite numbers >= 0, one per member")
        if not values.sum() > 0:
            options.fail("population_weights", weights, "numbers >= 0, at least one of them above 0")
        return checked, values / values.sum()

    def _member(self, opponents: Any, what: str) -> tuple[tuple, dict[int, list[Any]], dict[int, list[Any]]]:
        """One table: its identity (the label of every seat's player at every count), its players
        by count (checked and loaded) and its specs by count."""
        table = options.opponents_by_count(opponents, self.counts, what=what)
        key = tuple((n, tuple(self._label(spec) for spec in specs)) for n, specs in sorted(table.items()))
        return key, self._load_table(table), table

    @staticmethod
    def _label(spec: Any) -> str:
        return repr(spec) if isinstance(spec, BatchAgent) else players.label(spec)

    def _load_table(self, table: dict[int, list[Any]]) -> dict[int, list[Any]]:
        """The players of a table by count, each checked and loaded once (a batched form required)."""
        loaded = {}
        for n, specs in table.items():
            row = []
            for spec in specs:
                label = self._label(spec)
                if label not in self._loaded:
                    player = spec if isinstance(spec, BatchAgent) else players.resolve(spec, self.trust_checkpoint)
                    if not isinstance(player, BatchAgent) and not player.batch_capable:
                        player.batched(seed=0)  # the error that names the batched players
                    self._loaded[label] = player
                row.append(self._loaded[label])
            loaded[n] = row
        return loaded

    def _set_members(self, members: list[tuple[tuple, dict[int, list[Any]], Any]], probabilities: np.ndarray) -> None:
        """The current population: ``_members[i]`` is (key, players by count, specs by count)."""
        self._members = list(members)
        self.population_weights = np.asarray(probabilities, dtype=np.float64)
        labels = {self._label(spec) for _, _, table in self._members for specs in table.values() for spec in specs}
        self._loaded = {label: player for label, player in self._loaded.items() if label in labels}

    def _build_players(self, seed: int) -> None:
        """A new run of games (every slot is dealt): the tables are the population's members."""
        self._player_seed = seed
        self._made = 0
        self._built: dict[tuple[int, str], BatchAgent] = {}
        self._tables = [(key, table) for key, table, _ in self._members]
        self._index_players()

    def _keep_tables_in_play(self) -> None:
        """After ``set_population``: the tables are the new members in order, then the ones a slot
        still plays that the population has dropped (each slot keeps its game's table, renumbered)."""
        keys = [key for key, _, _ in self._members]
        tables = [(key, table) for key, table, _ in self._members]
        renumber = np.full(len(self._tables), -1, dtype=np.int64)
        for m in np.unique(self.member):
            key, table = self._tables[m]
            if key not in keys:
                keys.append(key)
                tables.append((key, table))
            renumber[m] = keys.index(key)
        self.member = renumber[self.member]
        self._tables = tables

    def _index_players(self) -> None:
        """One batched player per distinct spec and count, seeded; ``_player_index[m, n, k]`` is the
        player at k seats after the learner in an n-player game at table m (a player built before is
        kept, with its games' streams; the players no table has any more are let go)."""
        self._players: list[BatchAgent] = []
        self._player_index = np.full((len(self._tables), 6, 5), -1, dtype=np.int64)
        position: dict[tuple[int, str], int] = {}
        for m, (_, table) in enumerate(self._tables):
            for n, row in table.items():
                for k, player in enumerate(row, start=1):
                    key = (n, self._label(player) if isinstance(player, BatchAgent) else player.label)
                    if key not in self._built:
                        player_seed = derive_seed(self._player_seed, "agent", n, self._made)
                        self._made += 1
                        self._built[key] = player if isinstance(player, BatchAgent) else player.batched(player_seed)
                    if key not in position:
                        position[key] = len(self._players)
                        self._players.append(self._built[key])
                    self._player_index[m, n, k] = position[key]
        self._built = {key: self._built[key] for key in position}  # the dropped members' players go

    def _draw_members(self, size: int) -> np.ndarray:
        """Each new game's table: an index into the population, drawn by weight (none drawn for one)."""
        if len(self._members) == 1:
            return np.zeros(size, dtype=np.int64)
        return self.np_random.choice(len(self._members), size=size, p=self.population_weights).astype(np.int64)

    def _draw_counts(self, size: int) -> list[int] | None:
        if len(self.configs) == 1:
            return None if self.counts[0] == self.config.num_players else [self.counts[0]] * size
        return [int(k) for k in self.np_random.choice(self.counts, size=size)]

    def _draw_seats(self, n: np.ndarray) -> np.ndarray:
        if self.learner_seat_option == "random":
            return (self.np_random.random(len(n)) * n).astype(np.int64)
        return np.full(len(n), int(self.learner_seat_option), dtype=np.int64)

    def _collect(self) -> np.ndarray:
        """(num_envs,) the learner's reward from the engine's last call."""
        return seat_rewards(self.state, self.seat, self.scheme)

    def _play_others(self, earned: np.ndarray) -> None:
        """Let the opponents decide, all the games where a player is to act in one call per player,
        until every game waits for its learner or is over; adds what the learners earned meanwhile."""
        state = self.state

        def waiting() -> np.ndarray:
            return np.flatnonzero((state.pending_kind >= 0) & (state.pending_seat != self.seat))

        def player_of(games: np.ndarray) -> np.ndarray:
            n = state.n[games].astype(np.int64)
            return self._player_index[self.member[games], n, (state.pending_seat[games] - self.seat[games]) % n]

        def collect() -> None:
            earned[:] += self._collect()

        play(state, self._players, waiting, player_of, collect)

    def _settle(self, slots: np.ndarray, earned: np.ndarray) -> None:
        """Play the new games of ``slots`` up to their learner's first decision (``earned`` gets what
        it earned before it); a game that ends before the learner ever decides is dealt again."""
        self._play_others(earned)
        never = slots[self.state.game_over[slots]]
        while len(never):
            earned[never] = 0.0
            self._deal_again(never)
            self._play_others(earned)
            never = never[self.state.game_over[never]]

    def _deal_again(self, slots: np.ndarray) -> None:
        """The next game of each slot: a new count (when several are played) and learner seat."""
        state = self.state
        if len(self.configs) > 1:
            state.n[slots] = self._draw_counts(len(slots))
        batch.reset(state, slots)
        self.seat[slots] = self._draw_seats(state.n[slots].astype(np.int64))
        self.member[slots] = self._draw_members(len(slots))
        self._start_players(slots)
        self._deal_duplicates(slots)

    def _start_players(self, slots: np.ndarray) -> None:
        """The opponents' random streams in the new games of ``slots``, from the games' keys."""
        keys = seat_keys(self.state.key[slots])
        for player in self._players:
            player.start(slots, keys)
        self._readers.start(slots)

    def _deal_duplicates(self, slots: np.ndarray) -> None:
        """Queue copies of the deals just dealt in ``slots`` for the reference (``duplicate``); they
        are played in one batch when a game needs its baseline or enough have gathered (one call
        per player per decision for hundreds of games rather than for a step's few)."""
        if self._reference is None or not len(slots):
            return
        self._deal_serial += 1
        self._dealt[slots] = self._deal_serial
        self._unplayed[slots] = True
        self._queue.append((stack([(self.state, slots)]), slots.copy(), self._deal_serial))
        self._queued_games += len(slots)
        if self._queued_games >= max(1, self.num_envs // 4):
            self._play_duplicates()

    def _play_duplicates(self) -> None:
        """The reference's return on every queued deal: the copies played to their end with the
        reference in the learner's seat and twins of the slot's opponents, started with the same
        streams, so the opponents decide as they do in the slot until the two games part."""
        if not self._queue:
            return
        live = {id(player): player for player in self._players}  # twins of players let go go too
        self._shadows = {key: twin for key, twin in self._shadows.items() if live.get(key) is twin[0]}
        shadow = stack([(part, np.arange(part.batch_size)) for part, _, _ in self._queue])
        slots = np.concatenate([s for _, s, _ in self._queue])
        serials = np.concatenate([np.full(len(s), serial) for _, s, serial in self._queue])
        self._queue, self._queued_games = [], 0
        seat, member = self.seat[slots], self.member[slots]
        players = [self._shadow_of(player) for player in self._players] + [self._reference]
        games = np.arange(shadow.batch_size)
        keys = seat_keys(shadow.key)
        for player in players:
            player.start(games, keys)

        def waiting() -> np.ndarray:
            return np.flatnonzero(shadow.pending_kind >= 0)

        def player_of(g: np.ndarray) -> np.ndarray:
            n = shadow.n[g].astype(np.int64)
            k = (shadow.pending_seat[g] - seat[g]) % n
            return np.where(k == 0, len(players) - 1, self._player_index[member[g], n, k])

        play(shadow, players, waiting, player_of)
        current = self._dealt[slots] == serials  # a slot dealt again since (its game ended first) drops the old one
        self._baseline[slots[current]] = game_returns(shadow, seat, self.scheme)[current]
        self._unplayed[slots[current]] = False

    def _shadow_of(self, player: BatchAgent) -> BatchAgent:
        """A table player's twin for the duplicate deals (its own per-game state, the same decisions)."""
        twin = self._shadows.get(id(player))
        if twin is None or twin[0] is not player:
            twin = self._shadows[id(player)] = (player, copy.deepcopy(player))
        return twin[1]

    def _restart(self, slots: np.ndarray) -> None:
        self._pending[slots] = 0.0
        self._deal_again(slots)
        self._settle(slots, self._pending)

    def _observe(self) -> np.ndarray:
        posteriors = self._readers.posteriors(self.state, np.arange(self.num_envs), self.seat)
        observations = batch.observe(self.state, seats=self.seat, layout=self.layout, **posteriors)
        if self.critic_state:
            return np.concatenate([observations, encode_critic_state(self.state, self.seat)], axis=1)
        return observations

    def _info(self) -> dict[str, Any]:
        """The seat and player count of every slot's game (with a population, its member), with
        gymnasium's presence masks."""
        present = np.ones(self.num_envs, dtype=bool)
        info = {
            "seat": self.seat.copy(),
            "_seat": present,
            "num_players": self.state.n.astype(np.int64),
            "_num_players": present.copy(),
        }
        if self.population_mode:
            info["opponents"] = self._member_index()
            info["_opponents"] = present.copy()
        return info

    def _member_index(self) -> np.ndarray:
        """(num_envs,) each slot's member in the current population; -1 for one it has dropped."""
        return np.where(self.member < len(self._members), self.member, -1)

    def _final_info(self, terminated: np.ndarray, offending: np.ndarray) -> dict[str, Any]:
        """The learner's result in each finished game (zeros elsewhere)."""
        state = self.state
        slots = np.arange(self.num_envs)
        winners = state.winners
        won = winners[slots, self.seat] & ~offending & terminated
        share = np.where(won, 1.0 / np.maximum(1, winners.sum(1)), 0.0)
        margin = game_returns(state, self.seat, "margin")
        return {
            "points": np.where(terminated, state.points[slots, self.seat], 0).astype(np.int64),
            "_points": terminated.copy(),
            "margin": np.where(terminated, margin, 0.0),
            "_margin": terminated.copy(),
            "win_share": share,
            "_win_share": terminated.copy(),
            "is_winner": won,
            "_is_winner": terminated.copy(),
            illegal.KEY: offending & terminated,
            f"_{illegal.KEY}": terminated.copy(),
            **(
                {"opponents": np.where(terminated, self._member_index(), 0), "_opponents": terminated.copy()}
                if self.population_mode
                else {}
            ),
            **(
                {"baseline": np.where(terminated, self._baseline, 0.0), "_baseline": terminated.copy()}
                if self._reference is not None
                else {}
            ),
        }


def gymnasium_vector_entry(num_envs: int, **kwargs: Any) -> CheckpointCharlieVectorEnv:
    """The vector entry point of ``CheckpointCharlie-v1`` (``gymnasium.make_vec(..., vectorization_mode=
    "vector_entry_point")``): the batched engine's vector environment, autoresetting in gymnasium's
    default mode, ``NEXT_STEP``, unless ``autoreset_mode`` says otherwise."""
    kwargs.setdefault("autoreset_mode", AutoresetMode.NEXT_STEP)
    return CheckpointCharlieVectorEnv(num_envs, **kwargs)
