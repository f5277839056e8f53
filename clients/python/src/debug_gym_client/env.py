"""DebugGymEnv: one debug-gym session over HTTP with the Gymnasium API."""

from __future__ import annotations

import os
import uuid
from typing import Any, Mapping, Sequence

from ._http import HttpJson
from .errors import DebugGymError, SessionLostError
from .local import LocalServer
from .rewards import Reward, reward_fn

try:  # A gymnasium.Env when gymnasium is installed; the same API without it.
    import gymnasium as _gymnasium

    _Base: type = _gymnasium.Env
except ImportError:  # pragma: no cover - depends on what is installed
    _gymnasium = None
    _Base = object

Action = Any  # {"name", "arguments"}, an OpenAI tool call, (name, arguments) or a tool name


def to_action(action: Action) -> dict[str, Any]:
    """
    A tool call as the server takes it, ``{"name", "arguments", "id"?}``, from: that dict; an OpenAI
    tool call ``{"id", "function": {"name", "arguments": "<json>"}}``; ``(name, arguments)``; or a
    tool name alone.
    """
    if isinstance(action, str):
        return {"name": action}
    if isinstance(action, (tuple, list)) and len(action) == 2 and isinstance(action[0], str):
        return {"name": action[0], "arguments": action[1]}
    if isinstance(action, Mapping):
        if "function" in action and isinstance(action["function"], Mapping):
            function = action["function"]
            call: dict[str, Any] = {"name": function.get("name"), "arguments": function.get("arguments") or {}}
            if action.get("id"):
                call["id"] = str(action["id"])
            return call
        if "name" in action:
            return {key: action[key] for key in ("name", "arguments", "id") if key in action}
    raise TypeError(
        f"An action is {{'name': ..., 'arguments': {{...}}}}, an OpenAI tool call, (name, arguments) or a tool name; got {action!r}"
    )


class DebugGymEnv(_Base):  # type: ignore[misc, valid-type]
    """
    One debug-gym env (a session on a server) with the Gymnasium API:

    - ``reset(seed=None, options=None) -> (observation, info)``: a new episode. ``options`` are the
      server's reset options in snake_case (``path`` or ``benchmark`` + ``task``, ``terminal``,
      ``tools``, ``entrypoint``, ``run_timeout``, ...), over the ones given to the constructor.
    - ``step(action) -> (observation, reward, terminated, truncated, info)``.
    - ``close()``: ends the session (its sandbox is removed).

    The observation is the env info with the original debug-gym's names (``step_observation``,
    ``eval_observation``, ``dir_tree``, ``current_breakpoints``, ``max_score``, ``rewrite_counter``,
    ``tools``, ``instructions``, ...). With ``lean=True`` (default) the server sends only what changed
    and this client merges it into the observation it holds, so you always see the whole of it.

    ``reward``: ``"delta"`` (default: tests newly passing, so an episode's rewards add up to its score
    gain), ``"score"``, ``"resolved"`` (1.0 once solved) or a callable ``(info_before, info_after)``.
    ``terminated``: the episode ended by the task (resolved, submitted); ``truncated``: it ended for
    another reason (the sandbox died).
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        token: str | None = None,
        *,
        reward: Reward = "delta",
        lean: bool = True,
        timeout: float | None = None,
        step_timeout: float | None = None,
        session_id: str | None = None,
        **options: Any,
    ) -> None:
        self.base_url = base_url
        self._token = token
        self._timeout = timeout
        self._http = HttpJson(base_url, token if token is not None else (os.environ.get("DEBUG_GYM_TOKEN") or os.environ.get("DEBUG_GYM_SERVER_TOKEN")), timeout)
        self._reward_spec = reward
        self._reward = reward_fn(reward)
        self._lean = lean
        self._step_timeout = step_timeout
        self._options = dict(options)
        self.session_id = session_id or uuid.uuid4().hex
        self._observation: dict[str, Any] | None = None
        self._info: dict[str, Any] | None = None
        self._server: LocalServer | None = None
        self._open = False
        #: Set on an env ``fork()`` returned: what the server could not reproduce (usually empty).
        self.fork_warnings: list[str] = []

    @classmethod
    def local(cls, server_args: Sequence[str] = (), *, command: Sequence[str] | None = None, **kwargs: Any) -> "DebugGymEnv":
        """An env on a server this process starts (``debug-gym serve --http --port 0``) and stops on ``close()``."""
        server = LocalServer(server_args, command=command)
        try:
            env = cls(server.url, **kwargs)
        except BaseException:
            server.stop()
            raise
        env._server = server
        return env

    @property
    def observation(self) -> dict[str, Any] | None:
        """The latest observation (the whole env info), None before the first reset."""
        return self._observation

    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        if _gymnasium is not None:
            super().reset(seed=seed)
        body: dict[str, Any] = {**self._options, **(options or {}), "request_id": uuid.uuid4().hex}
        if seed is not None:
            body["seed"] = seed
        payload = self._http.request("POST", "/reset", body, {"X-Session-Id": self.session_id})
        self._open = True
        self._observation = dict(payload["observation"])
        self._info = self._info_of(payload)
        return self._observation, dict(self._info)

    def step(self, action: Action) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._observation is None or self._info is None:
            raise DebugGymError("step() before reset(): call reset() first.", code="DG_ENV_NOT_READY")
        body: dict[str, Any] = {"action": to_action(action), "request_id": uuid.uuid4().hex, "reply": "lean" if self._lean else "full"}
        if self._step_timeout is not None:
            body["timeout_s"] = self._step_timeout
        payload = self._http.request("POST", "/step", body, {"X-Session-Id": self.session_id})
        observation = dict(self._observation)
        observation.update(payload["observation"])
        if "all_observations" not in payload["observation"]:
            observation["all_observations"] = [observation["step_observation"]]
        before, info = self._info, self._info_of(payload)
        self._observation, self._info = observation, info
        return observation, self._reward(before, info), bool(info["terminated"] and not info["truncated"]), bool(info["truncated"]), dict(info)

    def fork(self, *, session_id: str | None = None) -> "DebugGymEnv":
        """
        Branch the episode: a new env (a new session on the same server) in this env's state — working
        copy, breakpoints, counters, last eval, a pdb session at the same point — independent from then
        on (tree search, best-of-n, GRPO). It has this env's reward, lean and step-timeout settings and
        its observation; ``fork_warnings`` lists what could not be reproduced. Close it on its own; a
        fork of a ``local()`` env lives as long as that env's server.
        """
        if self._observation is None or self._info is None:
            raise DebugGymError("fork() before reset(): call reset() first.", code="DG_ENV_NOT_READY")
        clone = DebugGymEnv(self.base_url, self._token, reward=self._reward_spec, lean=self._lean, timeout=self._timeout, step_timeout=self._step_timeout, session_id=session_id, **self._options)
        body = {"new_session_id": clone.session_id, "request_id": uuid.uuid4().hex}
        try:
            payload = self._http.request("POST", "/fork", body, {"X-Session-Id": self.session_id})
        except BaseException:
            clone._http.close()
            raise
        clone._open = True
        clone._observation = dict(payload["observation"])
        clone._info = clone._info_of(payload)
        clone.fork_warnings = list(payload.get("warnings", []))
        return clone

    def state(self) -> dict[str, Any]:
        """The session on the server: episode, step count, score, sandbox, whether a request runs."""
        return self._http.request("GET", f"/state?session_id={self.session_id}")

    def close(self) -> None:
        """End the session (the server removes its sandbox) and stop the server ``local()`` started. Idempotent."""
        try:
            if self._open:
                self._open = False
                try:
                    self._http.request("POST", "/close", {}, {"X-Session-Id": self.session_id})
                except SessionLostError:
                    pass
        finally:
            self._http.close()
            if self._server is not None:
                self._server.stop()
                self._server = None

    def __enter__(self) -> "DebugGymEnv":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"DebugGymEnv({self.base_url!r}, session_id={self.session_id!r})"

    def _info_of(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {**payload["info"], "session_id": payload["session_id"], "server": self.base_url}

