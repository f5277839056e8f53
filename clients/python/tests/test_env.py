"""DebugGymEnv against a real server (the built CLI) and real sandboxes (local backend)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIX, SERVER_ARGS

from debug_gym_client import REWARDS, DebugGymEnv, DebugGymError, EpisodeDoneError, LocalServer, ServerFullError, ServerUnavailableError, SessionLostError, to_action


def test_an_episode_through_the_gymnasium_api(server, options):
    env = DebugGymEnv(server.url, **options)
    observation, info = env.reset()
    assert observation["step_observation"]["source"] == "env"
    assert [tool["function"]["name"] for tool in observation["tools"]] == ["listdir", "view", "eval", "rewrite"]
    assert "app.py" in observation["dir_tree"] and observation["current_breakpoints"] == "No breakpoints are set."
    assert (info["score"], info["max_score"], info["resolved"], info["session_id"]) == (1, 2, False, env.session_id)

    observation, reward, terminated, truncated, info = env.step(FIX[0])
    assert "return a - b" in observation["step_observation"]["observation"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    observation, reward, terminated, truncated, info = env.step(FIX[1])
    assert observation["rewrite_counter"] == 1 and reward == 0.0
    observation, reward, terminated, truncated, info = env.step(FIX[2])
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert observation["resolved"] and observation["done"] and observation["termination_reason"] == "resolved"
    assert observation["eval_observation"]["observation"] == observation["last_eval"]["output"]
    assert env.state()["step_count"] == 3

    with pytest.raises(EpisodeDoneError) as done:
        env.step(FIX[2])
    assert done.value.status == 409 and "reset" in done.value.message
    observation, info = env.reset()  # the same session, a new episode on the same env
    assert (info["score"], info["step_count"], info["session_id"]) == (1, 0, env.session_id)
    env.close()
    with pytest.raises(SessionLostError) as lost:
        DebugGymEnv(server.url, session_id=env.session_id).state()
    assert lost.value.code == "DG_SESSION_CLOSED" and "closed by the client" in lost.value.message


def _normalized(observation, workdir):
    """Two sessions differ only in their working copy's path and the tests' timings."""
    text = re.sub(r"in [0-9.]+s", "in <time>", json.dumps(observation).replace(workdir, "<workdir>"))
    text = re.sub(r'"duration_ms": [0-9.e+-]+', '"duration_ms": 0', text)
    return json.loads(text)


def test_lean_replies_add_up_to_the_full_observation(server, options, repo):
    lean, full = DebugGymEnv(server.url, **options), DebugGymEnv(server.url, lean=False, **options)
    try:
        lean_observation, _ = lean.reset()
        full_observation, _ = full.reset()
        steps = [{"name": "listdir", "arguments": {}}, *FIX[:2], {"name": "rewrite", "arguments": {"path": "new.py", "new_code": "x = 1"}}, FIX[2]]
        for action in steps:
            lean_observation, *_ = lean.step(action)
            full_observation, *_ = full.step(action)
            assert _normalized(lean_observation, lean_observation["workdir"]) == _normalized(full_observation, full_observation["workdir"])
        assert "new.py" in lean_observation["dir_tree"]
    finally:
        lean.close()
        full.close()


def test_fork_branches_the_episode_into_an_independent_env(server, options):
    with DebugGymEnv(server.url, **options) as env:
        with pytest.raises(DebugGymError) as early:
            env.fork()
        assert early.value.code == "DG_ENV_NOT_READY"
        env.reset()
        env.step(FIX[0])
        with env.fork() as branch:
            assert branch.session_id != env.session_id and branch.fork_warnings == []
            assert branch.observation == env.observation and branch.state()["step_count"] == 1
            assert [branch.step(action)[1] for action in FIX[1:]] == [0.0, 1.0]
            observation, reward, terminated, *_ = env.step(FIX[2])
            assert (reward, terminated, observation["rewrite_counter"], observation["score"]) == (0.0, False, 0, 1)
        assert env.step(FIX[0])[0]["step_count"] == 3  # closing the fork left this env open


def test_rewards_delta_score_resolved_or_your_own(server, options):
    seen = []

    def recording(before, after):
        seen.append((before, after))
        return after["score"] - 10 * before["score"]

    with DebugGymEnv(server.url, reward=recording, **options) as env:
        env.reset()
        assert [env.step(action)[1] for action in FIX] == [-9.0, -9.0, -8.0]
    assert [REWARDS["delta"](*pair) for pair in seen] == [0.0, 0.0, 1.0]
    assert [REWARDS["score"](*pair) for pair in seen] == [1.0, 1.0, 2.0]
    assert [REWARDS["resolved"](*pair) for pair in seen] == [0.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="delta, score, resolved"):
        DebugGymEnv(server.url, reward="sparse")


def test_actions_in_every_accepted_form(server, options):
    assert to_action("eval") == {"name": "eval"}
    assert to_action(("view", {"path": "a"})) == {"name": "view", "arguments": {"path": "a"}}
    openai_call = {"id": "call_1", "type": "function", "function": {"name": "view", "arguments": '{"path": "app.py"}'}}
    assert to_action(openai_call) == {"name": "view", "arguments": '{"path": "app.py"}', "id": "call_1"}
    with pytest.raises(TypeError):
        to_action(42)
    with DebugGymEnv(server.url, **options) as env:
        env.reset()
        observation, *_ = env.step(openai_call)
        assert observation["action_tool_call"]["id"] == "call_1" and "return a - b" in observation["step_observation"]["observation"]
        observation, *_ = env.step(("view", {"path": "test_app.py"}))
        assert "def test_add" in observation["step_observation"]["observation"]


def test_errors_are_typed_and_precise(server, options):
    env = DebugGymEnv(server.url, **options)
    with pytest.raises(DebugGymError) as early:
        env.step("eval")
    assert early.value.code == "DG_ENV_NOT_READY"
    with pytest.raises(DebugGymError) as typo:
        env.reset(options={"tols": ["view"]})
    assert typo.value.status == 422 and typo.value.code == "DG_INVALID_REQUEST" and "did you mean `tools`" in typo.value.message
    with pytest.raises(DebugGymError) as missing:
        env.reset(options={"path": str(Path(options["path"]) / "missing")})
    assert missing.value.status == 400 and missing.value.code == "DG_ENV_CONFIG"
    env.close()
    with pytest.raises(ServerUnavailableError) as gone:
        DebugGymEnv("http://127.0.0.1:9", **options).reset()  # nothing listens on the discard port
    assert gone.value.code == "DG_SERVER_UNAVAILABLE" and "127.0.0.1:9" in gone.value.message


def test_a_server_with_a_token_refuses_clients_without_it(options, tmp_path, monkeypatch):
    # The token from a private file (not the command line, which every local user can read).
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\n")
    token_file.chmod(0o600)
    with LocalServer([*SERVER_ARGS, "--token-file", str(token_file)]) as secured:
        with pytest.raises(DebugGymError) as refused:
            DebugGymEnv(secured.url, token="wrong", **options).reset()
        assert refused.value.status == 401 and refused.value.code == "DG_UNAUTHORIZED"
        with DebugGymEnv(secured.url, token="s3cret", **options) as env:
            assert env.reset()[1]["max_score"] == 2
        # The client reads DEBUG_GYM_TOKEN (before the older DEBUG_GYM_SERVER_TOKEN) when given no token.
        monkeypatch.setenv("DEBUG_GYM_SERVER_TOKEN", "wrong")
        monkeypatch.setenv("DEBUG_GYM_TOKEN", "s3cret")
        with DebugGymEnv(secured.url, **options) as env:
            assert env.reset()[1]["max_score"] == 2


def test_a_server_whose_sandbox_budget_is_used_answers_server_full_with_the_numbers(options):
    # Room for one default sandbox (1024 processes) in a 1500-process budget: the second reset waits for it.
    with LocalServer([*SERVER_ARGS, "--pids-budget", "1500", "--max-sessions", "4"]) as small:
        with DebugGymEnv(small.url, **options) as first:
            first.reset()
            with pytest.raises(ServerFullError) as full:
                DebugGymEnv(small.url, **options).reset()
            assert full.value.status == 503 and full.value.code == "DG_SERVER_BUDGET_EXHAUSTED"
            assert full.value.details["pids"] == {"requested": 1024, "in_use": 1024, "budget": 1500} and full.value.retry_after >= 1


def test_local_starts_its_own_server_and_stops_it_on_close(options):
    env = DebugGymEnv.local(SERVER_ARGS, **options)
    server = env._server
    assert server is not None and server.running
    observation, info = env.reset()
    assert info["score"] == 1
    env.close()
    assert not server.running and server.process.returncode == 128 + 15  # SIGTERM: sessions closed, then exit


def test_a_gymnasium_env_subclass_when_gymnasium_is_importable(tmp_path):
    # gymnasium is not installable here (no PyPI): a stand-in module with its Env base class checks the wiring.
    (tmp_path / "gymnasium").mkdir()
    (tmp_path / "gymnasium" / "__init__.py").write_text(
        "class Env:\n    seeded = []\n    def reset(self, *, seed=None, options=None):\n        Env.seeded.append(seed)\n"
    )
    source = Path(__file__).resolve().parents[1] / "src"
    code = (
        "import gymnasium, debug_gym_client as d\n"
        "assert issubclass(d.DebugGymEnv, gymnasium.Env)\n"
        "env = d.DebugGymEnv('http://127.0.0.1:9')\n"
        "try:\n    env.reset(seed=7)\nexcept d.ServerUnavailableError:\n    pass\n"
        "print(gymnasium.Env.seeded)\n"
    )
    output = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{source}"}, capture_output=True, text=True, check=True)
    assert output.stdout.strip() == "[7]"
