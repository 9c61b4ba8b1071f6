"""The vector environment on several cores: its game slots split across worker processes.

The batched engine steps every game of a batch in one Python thread, and most of a step's time is
the per-call cost of its array operations (a pass over 1024 games costs about twice one over 50),
so a second core cannot help inside one process. ``SubprocVectorEnv`` gives each of
``workers`` processes a contiguous shard of the slots, each a
:class:`~ckc_env.envs.vector.CheckpointCharlieVectorEnv` of its own, steps the shards at the same time
and joins their results: the same observation, action, reward and info layout as the in-process
environment (``action_masks()`` included), so SB3's ``SB3VecEnv`` and gymnasium vector learners
take it unchanged. ``set_population(members, weights)`` reaches every shard (each draws its slots'
tables from its own ``np_random``). A worker's exception is raised in the parent (a ValueError as a
ValueError); one raised by ``reset`` or ``step``, such as an opponent's refused decision, says which
slots the worker plays, since it names a game by its index in the worker's shard.

    env = SubprocVectorEnv(1024, workers=2, opponents="bayes_v1", belief_features=True)
    observations, infos = env.reset(seed=0)

Seeding: ``reset(seed=s)`` seeds shard i with ``derive_seed(s, "shard", i)``, so one seed and one
worker count give one run; a different worker count deals different games. The shards hold their
own batch states (``env.state`` of the in-process environment has no counterpart here). Worker
processes start with ``start_method`` (default ``"forkserver"`` where available, else ``"spawn"``,
as stable-baselines3's ``SubprocVecEnv``), so the parent's torch threads are not forked; a script
that builds one must guard its entry point with ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import traceback
from multiprocessing.connection import Connection
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..seeding import derive_seed
from .slot_calls import SlotCalls


class WorkerError(RuntimeError):
    """An exception raised inside a worker process (its type, message and traceback quoted)."""


def _worker(connection: Connection, shared: Any, start: int, size: int, kwargs: dict[str, Any]) -> None:
    """One shard: build its environment, then answer ``(command, data)`` messages until ``close``;
    every reply is ``("ok", result)`` or ``("error", description)``. Observations are written into
    the shared array (rows ``start`` to ``start + size``), not sent: they are most of a step's bytes."""
    from .vector import CheckpointCharlieVectorEnv

    try:
        env = CheckpointCharlieVectorEnv(size, **kwargs)
    except Exception as exc:  # the parent raises it with the same type where it can
        connection.send(("error", (type(exc).__name__, str(exc), traceback.format_exc())))
        connection.close()
        return
    width = env.single_observation_space.shape[0]
    rows = np.frombuffer(shared, dtype=np.float32).reshape(-1, width)[start : start + size]
    connection.send(("ok", (env.single_observation_space, env.single_action_space)))
    while True:
        try:
            command, data = connection.recv()
        except (EOFError, KeyboardInterrupt):
            break
        try:
            if command == "reset":
                observations, infos = env.reset(**data)
                rows[:] = observations
                connection.send(("ok", (infos, env.action_masks())))
            elif command == "step":
                observations, rewards, terminated, truncated, infos = env.step(data)
                rows[:] = observations
                if "final_obs" in infos:  # the finished games' rows only, as one array
                    ended = np.flatnonzero(infos["_final_obs"])
                    infos["final_obs"] = (ended, np.stack(list(infos["final_obs"][ended])))
                connection.send(("ok", (rewards, terminated, truncated, infos, env.action_masks())))
            elif command == "set_population":
                env.set_population(*data)
                connection.send(("ok", None))
            elif command == "close":
                env.close()
                connection.send(("ok", None))
                break
            else:
                raise ValueError(f"unknown worker command {command!r}")
        except Exception as exc:
            message = str(exc)
            if command in ("reset", "step"):  # an opponent's refused decision names its game by index in the shard
                message += (
                    f" (raised in the worker of slots {start}..{start + size - 1}: its game g is slot {start} + g)"
                )
            connection.send(("error", (type(exc).__name__, message, traceback.format_exc())))
    connection.close()


def _observation_width(belief_features: Any, critic_state: Any = False) -> int:
    """The observation's length for the shared array (an invalid value is the worker's to refuse)."""
    from ..observation import BELIEF_FEATURES, CRITIC_STATE, LAYOUTS
    from .vector import ENV_VERSION

    known = any(belief_features is v or (isinstance(v, str) and belief_features == v) for v in BELIEF_FEATURES)
    extra = CRITIC_STATE.size if isinstance(critic_state, (bool, np.bool_)) and critic_state else 0
    return LAYOUTS[ENV_VERSION][belief_features if known else False].size + extra


class SubprocVectorEnv(SlotCalls, gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent games over the batched engine in ``workers`` processes (see the
    module docstring); every other argument is :class:`~ckc_env.envs.vector.CheckpointCharlieVectorEnv`'s."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 (gymnasium's convention)

    def __init__(self, num_envs: int, workers: int = 2, start_method: str | None = None, **kwargs: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"invalid num_envs={num_envs!r}: accepted values are integers >= 1")
        if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or not 1 <= workers <= num_envs:
            raise ValueError(f"invalid workers={workers!r}: accepted values are integers from 1 to num_envs={num_envs}")
        methods = mp.get_all_start_methods()
        if start_method is None:
            start_method = "forkserver" if "forkserver" in methods else "spawn"
        if start_method not in methods:
            raise ValueError(f"invalid start_method={start_method!r}: accepted values here are {methods}")
        self.num_envs = int(num_envs)
        self.workers = int(workers)
        mode = kwargs.get("autoreset_mode", AutoresetMode.SAME_STEP)  # checked by the shards
        if getattr(mode, "value", mode) in ("NextStep", "SameStep"):
            self.metadata = {**self.metadata, "autoreset_mode": AutoresetMode(getattr(mode, "value", mode))}
        self.sizes = [len(part) for part in np.array_split(np.arange(self.num_envs), self.workers)]
        self.bounds = np.cumsum([0, *self.sizes])
        context = mp.get_context(start_method)
        self._connections: list[Connection] = []
        self._processes: list[mp.process.BaseProcess] = []
        self._closed = False
        width = _observation_width(kwargs.get("belief_features", False), kwargs.get("critic_state", False))
        self._shared = context.RawArray("f", self.num_envs * width)
        self._observations = np.frombuffer(self._shared, dtype=np.float32).reshape(self.num_envs, width)
        for start, size in zip(self.bounds, self.sizes, strict=False):
            parent, child = context.Pipe()
            process = context.Process(target=_worker, args=(child, self._shared, start, size, kwargs), daemon=True)
            process.start()
            child.close()
            self._connections.append(parent)
            self._processes.append(process)
        try:
            spaces = self._gather()
        except Exception:
            self.close()
            raise
        self.single_observation_space, self.single_action_space = spaces[0]
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._masks: np.ndarray | None = None

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Deal a new game in every slot; shard i is seeded ``derive_seed(seed, "shard", i)``."""
        self._check_open()
        for i, connection in enumerate(self._connections):
            shard_seed = None if seed is None else derive_seed(seed, "shard", i)
            connection.send(("reset", {"seed": shard_seed, "options": options}))
        replies = self._gather()
        self._masks = np.concatenate([masks for _, masks in replies])
        return self._observations.copy(), self._join_infos([info for info, _ in replies])

    def step(self, actions: np.ndarray):
        self._check_open()
        if self._masks is None:
            raise RuntimeError("step() before reset(): call reset() first")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be integers of shape ({self.num_envs},), got {actions.dtype} {actions.shape}"
            )
        for i, connection in enumerate(self._connections):
            connection.send(("step", actions[self.bounds[i] : self.bounds[i + 1]]))
        replies = self._gather()
        self._masks = np.concatenate([reply[4] for reply in replies])
        rewards, terminated, truncated = (np.concatenate([reply[k] for reply in replies]) for k in range(3))
        parts = [reply[3] for reply in replies]
        final = [part.pop("final_obs", None) for part in parts]
        infos = self._join_infos(parts)
        if any(f is not None for f in final):
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
            for start, f in zip(self.bounds, final, strict=False):
                if f is not None:
                    for slot, row in zip(f[0], f[1], strict=True):
                        infos["final_obs"][start + slot] = row
        return self._observations.copy(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 40) bool: each slot learner's legal actions (sent with the last reset or step)."""
        if self._masks is None:
            raise RuntimeError("action_masks() before reset(): call reset() first")
        return self._masks

    def set_population(self, members: Any, weights: Any = None) -> None:
        """Every shard's :meth:`~ckc_env.envs.vector.CheckpointCharlieVectorEnv.set_population`: the
        tables of each slot's next deal drawn from ``members`` (a refusal is raised here, and, every
        shard checking the same members, leaves them all as they were)."""
        self._check_open()
        for connection in self._connections:
            connection.send(("set_population", (members, weights)))
        self._gather()

    def close(self, **kwargs: Any) -> None:
        """Stop the workers (waiting briefly for each, then terminating it); safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for connection in self._connections:
            with contextlib.suppress(BrokenPipeError, OSError):  # a worker that is gone needs no message
                connection.send(("close", None))
        for connection, process in zip(self._connections, self._processes, strict=True):
            try:
                if connection.poll(5):
                    connection.recv()
            except (EOFError, OSError):
                pass
            process.join(5)
            if process.is_alive():
                process.terminate()
                process.join()
            connection.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            self.close()

    # ------------------------------------------------------------------ internals
    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the environment is closed")

    def _gather(self) -> list[Any]:
        """Every worker's reply, in shard order; a worker's exception is raised here (its type when
        it is ValueError, TypeError or RuntimeError, else WorkerError), after every reply is read."""
        replies, failure = [], None
        for i, connection in enumerate(self._connections):
            try:
                status, result = connection.recv()
            except EOFError:
                status, result = "error", ("EOFError", f"worker {i} exited", "")
            if status == "error" and failure is None:
                failure = (i, *result)
            replies.append(result)
        if failure is not None:
            i, name, message, trace = failure
            kind = {"ValueError": ValueError, "TypeError": TypeError, "RuntimeError": RuntimeError}.get(name)
            if kind is not None:
                raise kind(message)
            raise WorkerError(f"worker {i} raised {name}: {message}\n{trace}")
        return replies

    def _join_infos(self, parts: list[dict[str, Any]]) -> dict[str, Any]:
        """The shards' infos as one batch: arrays joined, a key some shards lack filled with their
        empty value (``None`` final observations, zeros, False)."""
        infos: dict[str, Any] = {}
        keys = [key for part in parts for key in part]
        for key in dict.fromkeys(keys):
            values = [part.get(key) for part in parts]
            infos[key] = self._join(values)
        return infos

    def _join(self, values: list[Any]) -> Any:
        present = next(value for value in values if value is not None)
        if isinstance(present, dict):
            keys = dict.fromkeys(key for value in values if value is not None for key in value)
            return {key: self._join([None if v is None else v.get(key) for v in values]) for key in keys}
        filled = []
        for size, value in zip(self.sizes, values, strict=True):
            if value is None:
                value = np.zeros(size, dtype=present.dtype)
                if present.dtype == object:
                    value[:] = None
            filled.append(value)
        return np.concatenate(filled)


__all__ = ["SubprocVectorEnv", "WorkerError"]
