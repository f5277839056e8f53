import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestEnv, testPython, testdir, type Backend } from '@debug-gym/test-utils';
import { LocalTerminal } from '@debug-gym/terminal';
import evalTool from '@debug-gym/tool-eval';
import listdirTool from '@debug-gym/tool-listdir';
import pdbTool from '@debug-gym/tool-pdb';
import rewriteTool from '@debug-gym/tool-rewrite';
import viewTool from '@debug-gym/tool-view';
import { describe, expect, test } from 'vitest';
import { ReplayExhaustedError, TRAJECTORY_FORMAT_VERSION, TrajectoryFormatError, createAgent, createReplayAgent, createReplayModel, loadReplaySource, readTrajectory, replayAnswers } from '../src/index.js';

// The CLI's scripted demo (a session and the repository it fixes), used here as a real recorded session.
const demoDir = new URL('../../cli/demo/', import.meta.url).pathname;
const local: Backend = { name: 'local', create: () => new LocalTerminal({ python: testPython }) };
const tools = [{ type: 'function' as const, function: { name: 'eval', description: 'Run.', parameters: { type: 'object' as const, properties: {} } } }];

describe('createReplayModel', () => {
  test('answers with the script calls in order, then reports it is exhausted', async () => {
    const model = createReplayModel({ steps: [{ name: 'eval', arguments: {} }, { name: 'view', arguments: { path: 'a.py' } }] });
    const first = await model.generate({ messages: [], tools });
    const second = await model.generate({ messages: [], tools });
    expect([first.toolCall?.name, second.toolCall?.arguments]).toEqual(['eval', { path: 'a.py' }]);
    expect(first.usage).toEqual({ promptTokens: 0, completionTokens: 0 });
    await expect(model.generate({ messages: [], tools })).rejects.toSatisfy((error: unknown) => ReplayExhaustedError.isInstance(error));
  });

  test('continues with another model once the recording runs out', async () => {
    const after = createReplayModel([{ name: 'view', arguments: { path: 'b.py' } }], { name: 'after' });
    const model = createReplayModel([{ name: 'eval' }], { then: after });
    await model.generate({ messages: [], tools });
    expect((await model.generate({ messages: [], tools })).toolCall?.arguments).toEqual({ path: 'b.py' });
    expect(model.describe()).toMatchObject({ provider: 'replay', calls: 1, then: { provider: 'replay', calls: 1 } });
  });

  test('replays a trajectory answer by answer, malformed answers included', async () => {
    const trajectory = await readTrajectory(new URL('./fixtures/trajectory/valid/v1-shopping-cart.json', import.meta.url).pathname);
    expect(replayAnswers(trajectory)).toEqual([
      { toolCall: { id: 'call_1', name: 'eval', arguments: {} }, content: 'Running the tests first.', reasoning: null },
      { toolCall: null, content: "I'm not sure.", reasoning: null },
    ]);
  });
});

describe('loadReplaySource', () => {
  test('loads the bundled demo session as a script of tool calls', async () => {
    const source = await loadReplaySource(join(demoDir, 'session.json'));
    const demo = JSON.parse(readFileSync(join(demoDir, 'session.json'), 'utf8')) as { steps: unknown[] };
    expect(replayAnswers(source).map((answer) => answer.toolCall && { name: answer.toolCall.name, arguments: answer.toolCall.arguments })).toEqual(demo.steps);
  });

  test('loads a trajectory file, validating it', async () => {
    const source = await loadReplaySource(new URL('./fixtures/trajectory/valid/v1-shopping-cart.json', import.meta.url).pathname);
    expect('formatVersion' in source).toBe(true);
    await expect(loadReplaySource(new URL('./fixtures/trajectory/negative/future-version.json', import.meta.url).pathname)).rejects.toThrow(/Upgrade/);
  });

  test.each([
    { content: '{"steps": 3}', message: /neither a trajectory .* nor a script/ },
    { content: '[{"arguments": {}}]', message: /steps\[0\] must be a tool call/ },
    { content: 'nope', message: /cannot be read as JSON/ },
  ])('refuses $content', async ({ content, message }) => {
    const dir = testdir({ 'replay.json': content });
    await expect(loadReplaySource(join(dir, 'replay.json'))).rejects.toSatisfy((error: unknown) => TrajectoryFormatError.isInstance(error) && message.test((error as Error).message));
  });
});

describe('createReplayAgent', () => {
  test('replays with the recorded agent and settings', () => {
    const agent = createReplayAgent({
      formatVersion: TRAJECTORY_FORMAT_VERSION,
      producer: { name: 'x', version: '0' },
      createdAt: '',
      task: { name: 't' },
      agent: { type: 'debug_5_agent', settings: { maxSteps: 7, nRewritesBeforePdb: 2, systemPrompt: 'P', tools: ['pdb', 'eval'], maxHistorySteps: 3 } },
      llm: null,
      config: null,
      tools: [],
      reset: null,
      steps: [],
      result: null,
    });
    expect(agent.name).toBe('debug_5_agent');
    expect(agent.settings).toEqual({ maxSteps: 7, nRewritesBeforePdb: 2, systemPrompt: 'P', tools: ['pdb', 'eval'], maxHistorySteps: 3 });
    expect(agent.llm.name).toBe('replay');
  });

  test('replays a script with debug_agent unless told otherwise', () => {
    expect(createReplayAgent([{ name: 'eval' }]).name).toBe('debug_agent');
    expect(createReplayAgent({ steps: [] }, { agent: 'rewrite_agent', maxSteps: 3 }).settings).toMatchObject({ maxSteps: 3 });
  });
});

describe('replaying the demo session through an agent', () => {
  test('the scripted session fixes the demo repository, and its trajectory replays to the same result', async () => {
    const session = JSON.parse(readFileSync(join(demoDir, 'session.json'), 'utf8')) as { entrypoint: string };
    const makeEnv = () =>
      // runTimeout: the limit of one command (eval, pdb) well above a loaded machine's (no step here should time out).
      createTestEnv(local, { path: join(demoDir, 'repo'), entrypoint: session.entrypoint, runTimeout: 120, tools: [listdirTool, viewTool, pdbTool, rewriteTool, evalTool] });
    const agent = createAgent('debug_agent', { llm: createReplayModel(await loadReplaySource(join(demoDir, 'session.json'))) });
    const env = makeEnv();
    const out = testdir({});
    let first;
    try {
      first = await agent.run(env, { task: 'demo', outputDir: out });
    } finally {
      await env.close();
    }
    expect(first.result).toMatchObject({ status: 'resolved', success: true, stopReason: 'resolved', rewrites: 1, steps: 7, costUsd: 0 });
    expect(first.trajectory.steps.map((step) => step.toolCall?.name)).toEqual(['eval', 'view', 'pdb', 'pdb', 'pdb', 'rewrite', 'eval']);

    const again = createAgent('debug_agent', { llm: createReplayModel(await loadReplaySource(first.trajectoryPath as string)) });
    const env2 = makeEnv();
    try {
      const second = await again.run(env2, { task: 'demo-again' });
      expect(second.result).toMatchObject({ status: 'resolved', steps: 7, rewrites: 1 });
      const texts = (steps: typeof first.trajectory.steps) => steps.map((step) => step.observation.text.replace(/(?<![\d.])\d+\.\d+s/g, 'N.NNs').replace(/debug-gym-\w+/g, 'WORKDIR'));
      expect(texts(second.trajectory.steps)).toEqual(texts(first.trajectory.steps));
    } finally {
      await env2.close();
    }
    // Two episodes of 7 steps with pdb: about 5 s on a quiet machine, 22 s alone at load 19, and more than
    // the suite's 60 s among the other packages' tests on a busy one.
  }, 300_000);
});
