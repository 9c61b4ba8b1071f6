"""``engine: jax``: PPO on the device, the game, the opponents and the learner in one compiled JAX
program (PureJaxRL's shape).

- **One PPO iteration is one pure function** (:mod:`.update`): ``ppo.n_steps`` learner steps of
  ``vector.num_envs`` games, every opponent's decision and every engine step on the device, GAE,
  the epochs of minibatch updates. **One jitted call per iteration**, compiled once per run: only
  the iteration's figures (a few scalars) come back between calls. JAX picks the device: a GPU
  where the CUDA build of jax is installed, else the CPU.
- **Evaluations** are every trainer's (:mod:`training.evaluation`), played on the JAX engine
  (``ckc-evaluate --engine jax``'s loop: the agent's weights are an argument of the compiled loop).
- **Keys are explicit**: the run's seed gives the network's initialisation, the deals and every
  sample; the same config and seed give the same run on the same device and software.

The network is MlpPolicy's, written as the same safe agent file (:mod:`.network`); ``init_from``
starts from any safe agent file; ``finetune``'s ``critic_warmup`` and ``kl_to_start`` act inside
the update. Opponents: any player with a JAX form, by player count; a ``population`` of such
tables and, with ``vector.loop: decision``, ``self`` (each snapshot a member of its own: a table of
``keep`` on the device, a slot each), drawn at every deal by weight. The population's win rates,
weights and ``population.json`` are the SB3 path's (:class:`training.league.population.League`):
every finished game moves its member's win rate, the weights are refreshed every
``refresh_every`` steps and at every snapshot, between compiled calls. A game in progress when its
slot takes a new snapshot plays on against the new one. What this trainer does not train is
refused with the config (:mod:`training.config.engines`).

Files in the run folder besides every trainer's: ``progress.csv`` (one row per iteration: losses,
KL, clip fraction, explained variance, finished games and their win share, learner steps/s) and
``train_state.safetensors`` (:mod:`.state`: written whole at every evaluation and at the end;
``--resume`` reads it back, checked; the games in progress are dealt anew). The programs compiled
for a run are freed when it ends (:mod:`ckc_env.jax.compiled`).
"""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path
from typing import Any

import numpy as np

from ckc_env import cli
from ckc_env.files import write_atomic
from ckc_env.players.specs import SELF
from ckc_env.seeding import derive_seed

from ...config import TrainConfig
from ...league.population import PLACEHOLDER, League
from ...run import folder as run_folder
from ..base import Run, Trainer
from .network import Hyper, init_network, rollout_size, save_agent, start_network
from .state import STATE_FILE, load_state, save_state, state_timesteps
from .update import Runner, compile_chunk, make_optimizer

PROGRESS = "progress.csv"
SNAPSHOTS = "snapshots"
"""The run folder's snapshots of the learner (safe agent files), as the SB3 path keeps them."""
PRINT_EVERY = 10.0
"""Seconds between progress lines (and rewrites of progress.csv) between evaluations."""
FIRST_ITERATION = "about a minute"
"""How long the training iteration takes to compile the first time (then it is read from the cache)."""


class JAXTrainer(Trainer):
    """PPO compiled whole on the device JAX picks."""

    engine = "jax"
    evaluation_engine = "jax"

    def start(self, resume_from: Path | None) -> None:
        import jax.numpy as jnp

        from ckc_env.jax import compiled
        from ckc_env.observation import ENV_VERSION, LAYOUTS

        config = self.config
        compiled.times.clear()
        compiled.prepare()  # the persistent compile cache, a line per program compiled (a second run reads them)
        self.players = run_folder.trained_counts(config)
        self.league = League(config, self.run_dir) if config.population is not None else None
        self.env = build_env(config, trust_checkpoint=self.trust_checkpoint)
        kept = []  # the snapshots kept in the run folder (a resumed run's), oldest first
        if self.env_snapshots():
            kept = sorted((self.run_dir / SNAPSHOTS).glob("snapshot_*.json"))[-config.self_play.keep :]
        # each device slot's snapshot, named before the first deals draw their members
        self.slot_names: list[str | None] = [f"self:{card.stem}" for card in kept]
        self.slot_names += [None] * (self.env_snapshots() - len(kept))
        inputs = LAYOUTS[ENV_VERSION][config.belief_features].size
        params = None
        if config.init_from is not None and resume_from is None:
            params = start_network(config.init_from, inputs)
            cli.say(f"init_from: the policy and critic of {config.init_from}", flush=True)
        self.member_weights = self.weights()
        self.runner = start_runner(config, self.env, self.member_weights, params)
        self.timesteps = 0
        self.snapshots_taken = 0
        if resume_from is not None:
            self.runner = load_state(self.runner, resume_from, config)
            self.timesteps = state_timesteps(resume_from)
            self.runner = self.runner._replace(timesteps=jnp.float32(self.timesteps))
        for card in kept:  # back on the device, into the slots named above
            self.put_snapshot(start_network(str(card), inputs), f"self:{card.stem}")
        if config.finetune.kl_to_start > 0:
            from ...imitation.finetune import START_POLICY

            start_file = self.run_dir / START_POLICY.replace(".safetensors", "")
            if resume_from is None:
                save_agent(self.runner.params, start_file, config, 0, self.players)
            self.runner = self.runner._replace(start=start_network(str(start_file) + ".json", inputs))
        self.progress_log = Progress(self.run_dir, upto=self.timesteps if resume_from is not None else None)

    def env_snapshots(self) -> int:
        """How many snapshots the device keeps for the self seats (0: none are played)."""
        return getattr(self.env, "snapshots", 0)

    def put_snapshot(self, params: Any, name: str) -> None:
        """``params`` into the device's stack of snapshots, over the oldest once it is full
        (``name``: its member's, ``self:snapshot_<steps>``)."""
        import jax

        env_state = self.runner.env_state
        slot = self.snapshots_taken % self.env_snapshots()
        self.slot_names[slot] = name
        frozen = jax.tree_util.tree_map(lambda stack, new: stack.at[slot].set(new), env_state.frozen, params)
        self.snapshots_taken += 1
        taken = np.int32(min(self.snapshots_taken, self.env_snapshots()))
        self.runner = self.runner._replace(env_state=env_state._replace(frozen=frozen, taken=taken))

    def take_snapshot(self) -> None:
        """The learner now: a safe agent file in ``snapshots/`` (the ``keep`` latest kept, as the SB3
        path keeps them) and a network of the device's stack."""
        from ckc_env.files import remove_file

        folder = self.run_dir / SNAPSHOTS
        folder.mkdir(exist_ok=True)
        params = self.runner.params
        name = f"snapshot_{self.timesteps:012d}"
        save_agent(params, folder / name, self.config, self.timesteps, self.players)
        for old in sorted(folder.glob("snapshot_*.json"))[: -self.config.self_play.keep]:
            remove_file(old.with_suffix(".safetensors"))
            remove_file(old)
        self.put_snapshot(params, f"self:{name}")

    def league_index(self) -> list[int]:
        """Each device member's member of the league (-1: none, a snapshot slot not yet taken): the
        tables in order, then the slots by their snapshot's name (a population of ``self`` alone
        plays ``random`` in slot 0 until the first snapshot, as the league's placeholder member)."""
        assert self.league is not None
        members = self.league.members
        tables = [i for i, member in enumerate(members) if not member.self_play]
        selves = {member.name: i for i, member in enumerate(members) if member.self_play}
        slots = list(self.slot_names)
        if slots and slots[0] is None:
            slots[0] = f"self:{PLACEHOLDER}"
        return tables + [selves.get(name, -1) if name is not None else -1 for name in slots]

    def weights(self) -> np.ndarray:
        """The device members' sampling probabilities: one table, 1; a population's from its league
        (0 for a snapshot slot not yet taken; equal ones should no member map)."""
        if self.league is None:
            return np.ones(1)
        probabilities = self.league.weights()
        out = np.zeros(self.env.members)
        for member, index in enumerate(self.league_index()):
            if index >= 0:
                out[member] = probabilities[index]
        return out / out.sum() if out.sum() > 0 else np.full(self.env.members, 1.0 / self.env.members)

    def device_weights(self) -> Any:
        import jax.numpy as jnp

        return jnp.asarray(self.member_weights, jnp.float32)

    def record_games(self, member_games: np.ndarray, member_wins: np.ndarray) -> None:
        """An iteration's finished games per device member (and the learner's win shares in them)
        into the league's win rates."""
        assert self.league is not None
        for member, index in enumerate(self.league_index()):
            if index >= 0:
                self.league.add_games(index, round(float(member_games[member])), float(member_wins[member]))

    def refresh(self) -> dict[str, float]:
        """The league rescanned (its snapshots), its record written and the device's weights
        renewed; the log's population figures."""
        assert self.league is not None
        self.league.update(self.timesteps)
        self.member_weights = self.weights()
        return self.league.figures()

    def learn(self, run: Run) -> None:
        import jax

        from ckc_env.jax import compiled, exported

        config = self.config
        rollout = rollout_size(config)
        progress = self.progress_log
        iterate = compile_chunk(self.env, config, 1)  # one compiled call per iteration: one compilation per run
        first = self.runner._replace(env_state=self.runner.env_state._replace(weights=self.device_weights()))
        with compiled.compiling("the training iteration", FIRST_ITERATION):
            # read back as traced by a run before this one where the cache has it (ckc_env.jax.exported)
            iterate = exported.program(compiled.cache(), "the training iteration", iterate, (self.env, config), first)
            iterate.lower(first).compile()
        if self.league is not None:  # the first refresh: the record and the weights of the members now
            self.refresh()
            cli.say(f"population: {', '.join(m.name for m in self.league.members)}", flush=True)
        history = run.history
        next_eval = (history[-1]["timesteps"] if history else 0) + config.eval.every
        next_snapshot = (self.timesteps // config.self_play.snapshot_every + 1) * config.self_play.snapshot_every
        shown = time.perf_counter()
        while self.timesteps < config.total_timesteps:
            started = time.perf_counter()
            runner = self.runner
            self.runner, figures = iterate(
                runner._replace(env_state=runner.env_state._replace(weights=self.device_weights()))
            )
            figures = jax.device_get(figures)
            seconds = time.perf_counter() - started
            row = {name: float(value[0]) for name, value in figures.items() if np.ndim(value) == 1}
            steps = int(row.pop("learner_steps", rollout))  # the one-decision loop: the learner's decisions
            self.timesteps += steps
            timesteps = self.timesteps
            games = max(row.pop("games"), 1.0)
            progress.add(
                {
                    "time/total_timesteps": timesteps,
                    "time/elapsed": run.clock.elapsed(),
                    "time/learner_steps_per_s": round(steps / seconds, 1),
                    "rollout/games": games,
                    "rollout/win_share": row.pop("win_share_sum") / games,
                    "rollout/points": row.pop("points_sum") / games,
                    "rollout/margin": row.pop("margin_sum") / games,
                    "rollout/reward_per_step": row.pop("return_sum") / max(steps, 1),
                    **{f"train/{name}": value for name, value in row.items()},
                }
            )
            if self.league is not None:  # the running win rates, forgetting at 1/horizon per game
                self.record_games(figures["member_games"][0], figures["member_wins"][0])
            snapshot = self.env_snapshots() > 0 and timesteps >= next_snapshot
            if snapshot:
                self.take_snapshot()
                next_snapshot = (timesteps // config.self_play.snapshot_every + 1) * config.self_play.snapshot_every
            if self.league is not None and (snapshot or timesteps >= self.league.next_refresh):
                progress.rows[-1].update(self.refresh())
            evaluating = next_eval <= timesteps < config.total_timesteps
            if evaluating or timesteps >= config.total_timesteps or time.perf_counter() - shown >= PRINT_EVERY:
                shown = time.perf_counter()
                progress.flush()
                last = progress.rows[-1]
                print(
                    f"step {timesteps}/{config.total_timesteps} ({run.clock.elapsed():.0f} s): "
                    f"{last['time/learner_steps_per_s']:,.0f} learner steps/s, training games "
                    f"{last['rollout/win_share']:.3f} won",
                    flush=True,
                )
            if evaluating:
                next_eval = (timesteps // config.eval.every + 1) * config.eval.every
                run.evaluate()

    def save(self, prefix: Path, evaluation: dict[str, Any] | None = None, resumable: bool = True) -> Path:
        """The network's safe agent file (what resumes is the train state: :meth:`save_state`)."""
        return save_agent(self.runner.params, prefix, self.config, self.timesteps, self.players, evaluation)

    def save_state(self) -> None:
        save_state(self.runner, self.run_dir / STATE_FILE, self.timesteps)

    def evaluated(self) -> None:
        self.save_state()

    def record(self, tag: str, value: float) -> None:
        self.progress_log.record(tag, value, self.timesteps)

    def summary(self) -> dict[str, Any]:
        import jax

        from ckc_env.jax import compiled

        # what this run compiled: seconds each, and whether the persistent cache had it
        out: dict[str, Any] = {"device": str(jax.devices()[0]), "compile": dict(compiled.times)}
        if self.league is not None:  # as population.json lists them
            out["population"] = self.league.entries()
        return out

    def close(self) -> None:
        from ckc_env.jax import compiled

        compiled.free()  # each program holds memory mappings, of which a process has a limited number


class Model:
    """The network at a step count."""

    def __init__(self, params: Any, num_timesteps: int) -> None:
        self.params, self.num_timesteps = params, num_timesteps


def training_tables(config: TrainConfig) -> tuple[list[Any], list[int]]:
    """The device's tables (the opponents, or the population's tables then a table of ``self`` per
    snapshot kept, for its snapshot members) and the snapshot each table's ``self`` seats play (-1:
    one drawn per deal)."""
    if config.population is None:
        return [config.opponents], [-1]
    population = config.population
    slots = config.self_play.keep if population.uses_self_play else 0
    tables = [*population.tables, *[SELF] * slots]
    return tables, [-1] * len(population.tables) + list(range(slots))


def build_env(config: TrainConfig, weights: np.ndarray | None = None, trust_checkpoint: bool = False):
    """The run's environment on its training tables: the learner's view
    (:class:`~ckc_env.jax.vector_env.VectorEnv`), or with ``vector.loop: decision`` the table's
    (:class:`~ckc_env.jax.table_env.TableEnv`, one decision of every game per step)."""
    from ckc_env.jax import table_env
    from ckc_env.jax import vector_env as venv

    tables, member_slot = training_tables(config)
    options = (config.game, tables, config.learner_seat, config.belief_features, config.reward, trust_checkpoint)
    if config.vector.loop != "decision":
        return venv.VectorEnv.build(*options)
    snapshots = config.self_play.keep if config.uses_self_play and not config.self_play.shared else 0
    slots = member_slot if config.population is not None and snapshots else ()
    return table_env.TableEnv.build(*options, snapshots=snapshots, member_slot=slots)


def start_runner(config: TrainConfig, env: Any, weights: np.ndarray, params: Any = None) -> Runner:
    """The runner before the first iteration: the network (fresh from the seed, or ``params``),
    Adam's state, ``vector.num_envs`` games dealt (the learner's view: up to their learners' first
    decisions; the table's: to their first)."""
    import jax
    import jax.numpy as jnp

    from ckc_env.jax import table_env
    from ckc_env.jax import vector_env as venv
    from ckc_env.observation import ENV_VERSION, LAYOUTS

    key = jax.random.key(derive_seed(config.seed, "jax_ppo") % (1 << 32))
    key, init_key, env_key = jax.random.split(key, 3)
    if params is None:
        params = init_network(init_key, LAYOUTS[ENV_VERSION][config.belief_features].size, config)
    optimizer = make_optimizer(Hyper.of(config))
    weights = jnp.asarray(weights, jnp.float32)
    if isinstance(env, table_env.TableEnv):  # the snapshots' stack: as many networks as are kept, none in use
        frozen = jax.tree_util.tree_map(lambda x: jnp.zeros((env.snapshots, *x.shape), x.dtype), params)
        state = table_env.reset(env, env_key, config.vector.num_envs, weights, frozen if env.snapshots else None)
        env_state, obs, mask = state, None, None
    else:
        env_state, obs, mask = venv.reset(env, env_key, config.vector.num_envs, weights)
    return Runner(params, optimizer.init(params), env_state, obs, mask, key, jnp.float32(0), None)


PROGRESS_BYTES = 1 << 30


def _steps(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("inf")


class Progress:
    """``progress.csv`` (one row per PPO iteration, SB3's tag names) and, with torch installed,
    TensorBoard's event files in ``tensorboard/``."""

    def __init__(self, run_dir: Path, upto: int | None = None) -> None:
        """A resumed run's log is read back up to its train state's step (``upto``): the iterations
        logged after it are done again."""
        from ckc_env.files import read_bytes

        self.path = run_dir / PROGRESS
        self.rows: list[dict[str, Any]] = []
        if upto is not None and self.path.is_file():
            text = read_bytes(self.path, "training log", PROGRESS_BYTES).decode("utf-8", errors="replace")
            rows = list(csv.DictReader(io.StringIO(text)))
            self.rows = [row for row in rows if _steps(row.get("time/total_timesteps")) <= upto]
        self.writer = None
        try:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(run_dir / "tensorboard"))
        except Exception:  # no torch, or no tensorboard: the CSV alone
            self.writer = None

    def add(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        if self.writer is not None:
            step = int(row["time/total_timesteps"])
            for tag, value in row.items():
                if tag != "time/total_timesteps" and value is not None and value == value:
                    self.writer.add_scalar(tag, float(value), step)

    def record(self, tag: str, value: float, step: int) -> None:
        if self.writer is not None:
            self.writer.add_scalar(tag, value, step)

    def flush(self) -> None:
        names: list[str] = []
        for row in self.rows:
            names.extend(k for k in row if k not in names)
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=names)
        writer.writeheader()
        writer.writerows(self.rows)
        write_atomic(self.path, out.getvalue())
        if self.writer is not None:
            self.writer.flush()
