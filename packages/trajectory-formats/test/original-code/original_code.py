"""Run the original debug-gym's own code on trajectory files (a test-only step; nothing of it is copied here).

The original's functions and classes are read at run time from a copy of microsoft/debug-gym (a git
directory or a checkout, argv[2]; pinned commit in argv[3]) and executed with the standard library and
jinja2, with small stubs only for what they import but do not use on these code paths (loggers, the
terminal). Two commands:

  write <out_dir> <script.json>
                    the original's BaseAgent.run (FroggyAgent prompts, HistoryTracker, OpenAILLM's
                    tool definitions, message conversions and parse_tool_call_response,
                    TooledEnv.get_triggered_tools) on a scripted model and env, saved with its
                    save_trajectory: <out_dir>/<task>/trajectory.json
  read <file>...    the original's readers on each file: agents/utils.py load_trajectory,
                    analysis/tool_use/*.py analyze_froggy_results, analysis/gather_results.py main,
                    analysis/json_log_viewer (the Flask app: /load_file_from_path, /, /get_step/N,
                    /statistics); prints one `RESULT <json>` line per file with what they read
"""

import argparse
import ast
import copy
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import uuid
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple


class Upstream:
    """Source files of the original, from a git directory (bare or not) or a checkout."""

    def __init__(self, root: str, commit: str):
        self.root = root
        self.commit = commit
        self.is_git = os.path.exists(os.path.join(root, "HEAD")) and not os.path.exists(
            os.path.join(root, "debug_gym")
        )

    def text(self, path: str) -> str:
        if self.is_git:
            return subprocess.run(
                ["git", f"--git-dir={self.root}", "show", f"{self.commit}:{path}"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        with open(os.path.join(self.root, path), encoding="utf-8") as f:
            return f.read()

    def definitions(self, path: str, names: list[str], namespace: dict) -> None:
        """Execute the top-level classes/functions `names` of `path` (decorators included) in `namespace`."""
        source = self.text(path)
        lines = source.splitlines(keepends=True)
        found = {}
        try:
            tree = ast.parse(source)
        except SyntaxError:
            # The original needs Python 3.12 (PEP 701 f-strings in llms/base.py); the definitions used
            # here parse on 3.11 on their own, so cut them out by lines.
            found = _top_level_by_lines(lines, names)
            tree = ast.Module(body=[], type_ignores=[])
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in names:
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                found[node.name] = "".join(lines[start - 1 : node.end_lineno])
        missing = [name for name in names if name not in found]
        if missing:
            raise SystemExit(f"{path} at {self.commit} has no {', '.join(missing)}")
        for name in names:
            exec(compile(found[name], f"{path}::{name}", "exec"), namespace)

    def method(self, path: str, cls: str, name: str, namespace: dict):
        """One method of a class of `path`, as a plain function (cut out by lines: some of the
        original's files need Python 3.12 to parse whole, the methods used here do not)."""
        import re

        lines = self.text(path).splitlines(keepends=True)
        inside = False
        for index, line in enumerate(lines):
            if re.match(rf"class {cls}\b", line):
                inside = True
                continue
            if inside and line.strip() and line[0] not in " \t#":
                break
            if inside and re.match(rf"    def {name}\(", line):
                start = index
                while lines[start - 1].startswith("    @"):
                    start -= 1
                end = index + 1
                while end < len(lines) and (not lines[end].strip() or lines[end].startswith("        ") or lines[end].startswith("    )")):
                    end += 1
                local: dict = {}
                exec(compile(_dedent("".join(lines[start:end])), f"{path}::{cls}.{name}", "exec"), namespace, local)
                return local[name]
        raise SystemExit(f"{path} at {self.commit} has no {cls}.{name}")


def _top_level_by_lines(lines: list, names: list) -> dict:
    """Top-level `class`/`def` blocks (with their decorators) up to the next line at column 0."""
    import re

    found = {}
    for index, line in enumerate(lines):
        match = re.match(r"(?:class|def) (\w+)", line)
        if not match or match.group(1) not in names:
            continue
        start = index
        while start > 0 and lines[start - 1].startswith("@"):
            start -= 1
        end = index + 1
        while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t#"):
            end += 1
        found[match.group(1)] = "".join(lines[start:end])
    return found


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text)


class QuietLogger:
    """Stands in for DebugGymLogger: these code paths only log."""

    log_file = "debug_gym.log"

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def base_namespace() -> dict:
    return {
        "__name__": "debug_gym_original",
        "Any": Any,
        "Dict": Dict,
        "List": List,
        "Optional": Optional,
        "Tuple": Tuple,
        "dataclass": dataclass,
        "asdict": asdict,
        "field": field,
        "fields": fields,
        "MISSING": MISSING,
        "copy": copy,
        "json": json,
        "os": os,
        "uuid": uuid,
        "Path": Path,
    }


def original_classes(up: Upstream) -> dict:
    """The original's data classes and agents, executed from its source."""
    ns = base_namespace()
    ns["EnvInfo"] = object  # only an annotation on these paths
    ns["RepoEnv"] = object
    ns["EnvironmentTool"] = object
    ns["LLM"] = object
    ns["DebugGymLogger"] = type("DebugGymLogger", (QuietLogger,), {"__init__": lambda self, *a, **k: None})
    ns["UnrecoverableTerminalError"] = type("UnrecoverableTerminalError", (Exception,), {})
    ns["trim"] = lambda message, *a, **k: message
    up.definitions("debug_gym/gym/tools/tool.py", ["ToolCall"], ns)
    up.definitions("debug_gym/llms/base.py", ["TokenUsage", "LLMResponse"], ns)
    up.definitions("debug_gym/gym/utils.py", ["filter_non_utf8"], ns)
    up.definitions("debug_gym/agents/history_tracker.py", ["HistoryTracker"], ns)
    from jinja2 import Environment, FileSystemLoader, Template

    ns.update(Environment=Environment, FileSystemLoader=FileSystemLoader, Template=Template)
    ns["AGENT_REGISTRY"] = {}
    up.definitions("debug_gym/agents/base_agent.py", ["register_agent", "AgentArgs", "BaseAgent"], ns)
    up.definitions("debug_gym/agents/froggy_agent.py", ["FroggyAgentArgs", "FroggyAgent"], ns)
    up.definitions("debug_gym/agents/utils.py", ["save_trajectory", "load_trajectory"], ns)
    return ns


class ScriptedOpenAILLM:
    """The original OpenAILLM's own conversion methods and LLM.__call__, over scripted answers instead of the API."""

    def __init__(self, up: Upstream, ns: dict, answers: list):
        llm_ns = dict(ns)
        llm_ns["NOT_GIVEN"] = None
        llm_ns["OpenAIResponseParsingError"] = type("OpenAIResponseParsingError", (Exception,), {})
        llm_ns["ContextLengthExceededError"] = type("ContextLengthExceededError", (Exception,), {})
        llm_ns["trim_prompt_messages"] = lambda messages, *a, **k: messages
        llm_ns["print_messages"] = lambda *a, **k: None
        cls = type(self)
        for name in ["define_tools", "parse_tool_call_response", "convert_response_to_message", "convert_observation_to_message"]:
            setattr(cls, name, up.method("debug_gym/llms/openai.py", "OpenAILLM", name, llm_ns))
        self.ns = ns
        self.answers = list(answers)
        self.logger = QuietLogger()
        self.context_length = 128000
        self.runtime_generate_kwargs = {}
        self.config = types.SimpleNamespace(generate_kwargs={}, system_prompt_support=True, ignore_kwargs=[])

    def __call__(self, messages, tools, **kwargs):
        # LLM.__call__ (llms/base.py) needs Python 3.12 to parse; on these answers it returns generate()'s
        # response unchanged: OpenAILLM.parse_tool_call_response already made a no-call answer
        # ToolCall(id="empty_tool_response", name="empty_tool_response", arguments={}).
        return self.generate(messages, tools, **kwargs)

    def count_tokens(self, messages):
        return sum(len(json.dumps(m)) // 4 for m in (messages if isinstance(messages, list) else [messages]))

    def generate(self, messages, tools, **kwargs):
        """As OpenAILLM.generate builds its LLMResponse from a chat completion (the first tool call, or None)."""
        content, reasoning, call, usage = self.answers.pop(0)
        tool_call = None
        if call is not None:
            tool_call = types.SimpleNamespace(id=call[0], type="function", function=types.SimpleNamespace(name=call[1], arguments=json.dumps(call[2])))
        return self.ns["LLMResponse"](
            prompt=messages,
            response=content,
            reasoning_response=reasoning,
            tool=self.parse_tool_call_response(tool_call),
            prompt_token_count=usage[0],
            response_token_count=usage[1],
        )


class ScriptedEnv:
    """An env with the original TooledEnv.get_triggered_tools; tool observations are scripted."""

    def __init__(self, up: Upstream, ns: dict, script: dict):
        env_ns = dict(ns)
        type(self).get_triggered_tools = up.method("debug_gym/gym/envs/env.py", "TooledEnv", "get_triggered_tools", env_ns)
        self.task_name = script["task"]
        self.logger = QuietLogger()
        self._tools = {
            t["name"]: types.SimpleNamespace(name=t["name"], description=t["description"], arguments=t["arguments"], persistent_breakpoints=True, auto_list=True)
            for t in script["tools"]
        }
        self.script = script
        self.observations = list(script["observations"])
        self.resolved = False

    @property
    def tools(self):
        return list(self._tools.values())

    @property
    def tool_names(self):
        return ", ".join(self._tools)

    def has_tool(self, name):
        return name in self._tools

    def get_tool(self, name):
        return self._tools[name]

    def info(self, observation, call=None, content=None, reasoning=None, score=0, resolved=False):
        return types.SimpleNamespace(
            step_observation=types.SimpleNamespace(source="env", observation=observation),
            all_observations=[],
            eval_observation=types.SimpleNamespace(observation=self.script["eval_output"]),
            current_breakpoints="No breakpoints are set.",
            action_reasoning=reasoning,
            action_content=content,
            action_tool_call=call,
            instructions=self.script["instructions"],
            score=score,
            max_score=1,
            terminated=resolved,
            resolved=resolved,
            tools=self.tools,
        )

    def reset(self):
        return self.info(self.script["instructions"])

    def step(self, action, content=None, reasoning=None):
        message, _ = self.get_triggered_tools(action)
        if message:
            return self.info(message, action, content, reasoning)
        observation, resolved = self.observations.pop(0)
        self.resolved = resolved
        return self.info(observation, action, content, reasoning, score=1 if resolved else 0, resolved=resolved)


def write(up: Upstream, out_dir: str, script_file: str) -> None:
    with open(script_file, encoding="utf-8") as f:
        script = json.load(f)
    ns = original_classes(up)
    llm = ScriptedOpenAILLM(up, ns, [tuple(a) for a in script["answers"]])
    agent = ns["FroggyAgent"](agent_args={"max_steps": 10, "uuid": script["uuid"]}, llm=llm, logger=QuietLogger())
    env = ScriptedEnv(up, ns, script)
    agent.run(env)
    ns["save_trajectory"](agent, Path(out_dir) / script["task"], QuietLogger())


def gather_results_main(up: Upstream, path: str) -> list:
    """analysis/gather_results.py main(), with a pandas stand-in that records the rows it was given."""
    ns = base_namespace()
    rows: list = []

    class Frame:
        def __init__(self, data):
            rows.extend(data)

        def groupby(self, keys):
            return []

    ns["glob"] = __import__("glob").glob
    ns["pd"] = types.SimpleNamespace(DataFrame=Frame)
    ns["colored"] = lambda text, *a, **k: text
    up.definitions("analysis/gather_results.py", ["main"], ns)
    ns["main"](types.SimpleNamespace(path=Path(path), verbose=True, show_failed_only=False))
    return rows


def analysis_rows(up: Upstream, path: str) -> dict:
    """analyze_froggy_results of each analysis/tool_use script (they glob debug_gym.jsonl / froggy.jsonl files)."""
    out = {}
    for script in ["episode_length", "incorrect_arguments", "response_tokens", "tool_use_categories"]:
        ns = base_namespace()
        ns["glob"] = __import__("glob")
        ns["pd"] = types.SimpleNamespace(DataFrame=lambda rows: rows)
        up.definitions(f"analysis/tool_use/{script}.py", ["analyze_froggy_results"], ns)
        out[script] = ns["analyze_froggy_results"](path)
    return out


def viewer_pages(up: Upstream, file: str) -> dict:
    """analysis/json_log_viewer: load the file through its own route, render its pages."""
    work = tempfile.mkdtemp(prefix="original-viewer-")
    os.makedirs(os.path.join(work, "templates"))
    for name in ["json_log_viewer.py", "templates/index.html", "templates/statistics.html", "templates/upload.html"]:
        with open(os.path.join(work, name), "w", encoding="utf-8") as f:
            f.write(up.text(f"analysis/json_log_viewer/{name}"))
    os.environ["JSON_LOG_VIEWER_SAFE_ROOT"] = os.path.dirname(os.path.abspath(file))
    cwd = os.getcwd()
    os.chdir(work)
    try:
        spec = importlib.util.spec_from_file_location(f"json_log_viewer_{uuid.uuid4().hex}", os.path.join(work, "json_log_viewer.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        client = module.app.test_client()
        loaded = client.post("/load_file_from_path", json={"path": os.path.basename(file)})
        index = client.get("/")
        stats = client.get("/statistics")
        steps = []
        step_id = 0
        while True:
            reply = client.get(f"/get_step/{step_id}")
            if reply.status_code != 200:
                break
            steps.append(reply.get_json())
            step_id += 1
        return {
            "load": loaded.status_code,
            "index": index.status_code,
            "statistics": stats.status_code,
            "statistics_has_problem": json.load(open(file))["problem"] in stats.get_data(as_text=True),
            "steps": len(steps),
            "step0_system_role": (steps[0].get("system_message") or {}).get("role") if steps and isinstance(steps[0].get("system_message"), dict) else None,
        }
    finally:
        os.chdir(cwd)


def read(up: Upstream, files: list) -> None:
    ns = original_classes(up)
    for file in map(os.path.abspath, files):
        problem_dir = Path(file).parent
        responses = ns["load_trajectory"](problem_dir, QuietLogger()) or []
        # The analysis scripts glob for the 1.0 log names; give them the file under those names.
        tmp = tempfile.mkdtemp(prefix="original-analysis-")
        task_dir = Path(tmp) / "run" / problem_dir.name
        task_dir.mkdir(parents=True)
        for name in ["debug_gym.jsonl", "trajectory.json"]:
            (task_dir / name).write_text(Path(file).read_text(encoding="utf-8"), encoding="utf-8")
        import contextlib

        with contextlib.redirect_stdout(sys.stderr):
            gathered = gather_results_main(up, tmp)
            analysis = analysis_rows(up, str(Path(tmp) / "run"))
            viewer = viewer_pages(up, file)
        print(
            "RESULT " +
            json.dumps(
                {
                    "file": file,
                    "load_trajectory": [
                        {
                            "tool": asdict(r.tool),
                            "response": r.response,
                            "reasoning": r.reasoning_response,
                            "prompt_messages": len(r.prompt),
                            "token_usage": asdict(r.token_usage) if r.token_usage else None,
                        }
                        for r in responses
                    ],
                    "gather_results": gathered,
                    "analysis": analysis,
                    "viewer": viewer,
                }
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["write", "read"])
    parser.add_argument("upstream")
    parser.add_argument("commit")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    up = Upstream(args.upstream, args.commit)
    if args.command == "write":
        write(up, args.paths[0], args.paths[1])
    else:
        read(up, args.paths)


if __name__ == "__main__":
    sys.exit(main())
