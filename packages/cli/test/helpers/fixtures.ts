import { TRAJECTORY_FORMAT_VERSION, type EpisodeOutcome, type EpisodeResult, type EpisodeStatus } from '@debug-gym/agents';
import { defineBenchmark, type BenchmarkDataset, type BenchmarkTask, type BenchmarkV1, type ToolCall } from '@debug-gym/core';
import { join } from 'node:path';
import { testPython, testdir } from '@debug-gym/test-utils';

/** A repository with one bug: `add` subtracts. One of its two tests passes. */
export const BUGGY_FILES: Record<string, string> = {
  'app.py': 'def add(a, b):\n    return a - b\n',
  'test_app.py': 'from app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
};

/** The fix, as the tool calls a model would make, then the check. */
export const FIX_CALLS: ToolCall[] = [
  { name: 'rewrite', arguments: { path: 'app.py', start: 2, new_code: '    return a + b' } },
  { name: 'eval', arguments: {} },
];

export function buggyRepo(): string {
  return testdir(BUGGY_FILES);
}

/**
 * A `run.yaml` over a fresh buggy repo, with FIX_CALLS in `script.json` beside it: a base section
 * (local terminal, `maxSteps`, then the `base` lines) and a debug_agent section with view, eval and
 * rewrite (then the `extra` lines).
 */
export function runConfigFile(options: { maxSteps: number; base?: string[]; extra?: string[] }): { file: string; out: string; repo: string } {
  const repo = buggyRepo();
  const out = testdir({});
  const dir = testdir({
    'script.json': JSON.stringify({ steps: FIX_CALLS }),
    'run.yaml': [
      'base:',
      `  env: { path: ${repo}, entrypoint: python -m pytest -q . }`,
      `  terminal: { type: local, python: ${testPython} }`,
      `  output_path: ${out}`,
      `  max_steps: ${options.maxSteps}`,
      ...(options.base ?? []),
      'debug_agent:',
      '  tools: [view, eval, rewrite]',
      ...(options.extra ?? []),
    ].join('\n'),
  });
  return { file: join(dir, 'run.yaml'), out, repo };
}

export function task(id: string, path: string, extra: Partial<BenchmarkTask> = {}): BenchmarkTask {
  return { id, benchmark: 'fake', path, instructions: `Fix ${id}.`, entrypoint: 'python -m pytest -q .', ...extra };
}

/** A benchmark over the given tasks, with known fixes by task id. */
export function fakeBenchmark(tasks: BenchmarkTask[], options: { dataset?: Partial<BenchmarkDataset>; solutions?: Record<string, ToolCall[] | null> } = {}): BenchmarkV1 {
  return defineBenchmark({
    specificationVersion: 'benchmark-v1',
    name: 'fake',
    description: 'test tasks',
    async loadTasks(loadOptions = {}) {
      const selected = loadOptions.tasks ? tasks.filter((item) => loadOptions.tasks?.includes(item.id)) : tasks;
      loadOptions.onProgress?.({ phase: 'read', message: `read ${selected.length} tasks` });
      return { benchmark: 'fake', source: '/fake', tasks: selected, complete: true, warnings: [], expectedCount: tasks.length, ...options.dataset };
    },
    async solution(item) {
      return options.solutions?.[item.id] ?? null;
    },
  });
}

/** An outcome as an agent would return it, without running anything. */
export function fakeOutcome(taskId: string, status: EpisodeStatus, steps = 2): EpisodeOutcome {
  const now = new Date().toISOString();
  const result: EpisodeResult = {
    task: taskId,
    agent: 'debug_agent',
    model: 'fake',
    status,
    success: status === 'resolved',
    stopReason: status === 'resolved' ? 'resolved' : status === 'aborted' ? 'aborted' : 'max_steps',
    steps,
    rewrites: 1,
    score: status === 'resolved' ? 2 : 1,
    maxScore: 2,
    usage: { promptTokens: 1500, completionTokens: 20 },
    costUsd: 0.01,
    wallTimeMs: 1200,
    startedAt: now,
    finishedAt: now,
  };
  return {
    result,
    trajectory: {
      formatVersion: TRAJECTORY_FORMAT_VERSION,
      producer: { name: 'test', version: '0' },
      createdAt: now,
      task: { name: taskId },
      agent: { type: 'debug_agent', settings: {} },
      llm: null,
      config: { api_key: 'sk-should-not-appear' },
      tools: [],
      reset: null,
      steps: [],
      result,
    },
  };
}
