import { readFileSync } from 'node:fs';
import { createTestEnv, sharedDataPath, testPython, testdir, type Backend } from '@debug-gym/test-utils';
import { LocalTerminal } from '@debug-gym/terminal';
import evalTool from '@debug-gym/tool-eval';
import listdirTool from '@debug-gym/tool-listdir';
import pdbTool from '@debug-gym/tool-pdb';
import rewriteTool from '@debug-gym/tool-rewrite';
import viewTool from '@debug-gym/tool-view';
import { afterEach, describe, expect, test } from 'vitest';
import { AGENT_PRESETS, createAgent, createOpenAIModel, createReplayAgent, readTrajectory } from '../src/index.js';
import { errorReply, startChatServer, textReply, toolCallReply, type ChatServer } from './helpers/chat-server.js';

const local: Backend = { name: 'local', create: () => new LocalTerminal({ python: testPython }) };
const plugins = { pdb: pdbTool, rewrite: rewriteTool, view: viewTool, eval: evalTool, listdir: listdirTool } as const;
const FILE = 'shopping_cart_code.py';
// The cart subtracts discounts once, at apply_discount time, so items added later are never discounted.
// Computing the total from the items and their discounts fixes it.
const FIXED_GET_TOTAL = [
  '        total = sum(self.item_prices[item] * quantity * (1 - self.discounts.get(item, 0) / 100) for item, quantity in self.items.items())',
  '        return round(total, 2)',
].join('\n');

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('debug_agent end to end against an OpenAI-compatible server', () => {
  test('fixes mini-nightmare shopping_cart with pdb and rewrite, through retries and malformed answers, and records it', async () => {
    server = await startChatServer([
      toolCallReply('eval', {}, { content: 'First, the failing test.' }),
      errorReply(429, 'Rate limit reached for requests', { type: 'rate_limit_exceeded', headers: { 'retry-after': '0' } }),
      toolCallReply('pdb', { command: `b ${FILE}:24` }),
      toolCallReply('pdb', { command: 'c' }),
      toolCallReply('pdb', '{"command": "p self.total, self.discounts",}'),
      textReply('The discount is applied only to the items already in the cart.'),
      toolCallReply('pdb', { command: 'c' }),
      toolCallReply('pdb', { command: 'p self.total, self.items, self.discounts' }),
      toolCallReply('rewrite', { path: FILE, start: 24, new_code: FIXED_GET_TOTAL }, { content: 'Compute the total from the items and their discounts.' }),
      toolCallReply('eval', {}),
    ]);
    const llm = createOpenAIModel({
      name: 'scripted',
      model: 'scripted-model',
      endpoint: server.url,
      apiKey: 'sk-e2e-secret-key',
      prices: { inputPerMillion: 1, outputPerMillion: 4 },
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    const agent = createAgent('debug_agent', { llm, maxSteps: 20 });
    const env = createTestEnv(local, {
      path: sharedDataPath('mini_nightmare', 'shopping_cart'),
      entrypoint: 'python -m pytest --tb=no -s test.py',
      tools: agent.tools.map((name) => plugins[name as keyof typeof plugins]),
    });
    const out = testdir({});
    let outcome;
    try {
      outcome = await agent.run(env, {
        task: 'shopping_cart',
        taskDetails: { benchmark: 'mini_nightmare' },
        outputDir: out,
        config: { llm: { name: 'scripted', api_key: 'sk-e2e-secret-key' }, agent: { type: 'debug_agent' } },
        knownSecrets: ['sk-e2e-secret-key'],
      });
    } finally {
      await env.close();
    }
    const { result, trajectory, trajectoryPath } = outcome;
    expect(result).toMatchObject({ status: 'resolved', success: true, stopReason: 'resolved', steps: 9, rewrites: 1, score: 1, maxScore: 1 });
    expect(result.usage).toEqual({ promptTokens: 900, completionTokens: 180 });
    expect(result.costUsd).toBeCloseTo(0.00162, 8);
    expect(server.requests).toHaveLength(10);

    // The model was offered every debug_agent tool, natively.
    const offered = (server.requests[0]?.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered.sort()).toEqual([...AGENT_PRESETS.debug_agent.tools].sort());

    const steps = trajectory.steps;
    expect(steps.map((step) => step.toolCall?.name ?? null)).toEqual(['eval', 'pdb', 'pdb', 'pdb', null, 'pdb', 'pdb', 'rewrite', 'eval']);
    expect(steps[0]?.observation.text).toMatch(/1 failed/);
    // The fork server started the tests and pdb; the trajectory says so.
    expect(trajectory.reset?.launches?.map((launch) => `${launch.source} ${launch.via}`).sort()).toEqual(['env fork-server', 'pdb fork-server']);
    expect(steps[0]?.launches).toEqual([expect.objectContaining({ source: 'eval', via: 'fork-server' })]);
    expect(steps[1]?.observation.text).toMatch(new RegExp(`Breakpoint 1 at .*${FILE}:24`));
    expect(steps[2]?.state.breakpoints).toMatch(new RegExp(`line 24 in .*${FILE}`));
    // The repaired trailing comma made it through, and pdb printed the values.
    expect(steps[3]?.toolCall?.arguments).toEqual({ command: 'p self.total, self.discounts' });
    expect(steps[3]?.observation.text).toContain('(7.25, {})');
    expect(steps[4]?.observation.source).toBe('agent');
    expect(steps[6]?.observation.text).toMatch(/\{'apple': 5, 'banana': 3, 'orange': 7\}, \{'apple': 20, 'orange': 10\}/);
    expect(steps[7]?.state.rewriteCount).toBe(1);
    expect(steps[8]?.state).toMatchObject({ resolved: true, terminated: true, score: 1 });
    expect(steps.every((step) => step.prompt[0]?.role === 'system' && step.response.raw !== undefined && step.costUsd !== null)).toBe(true);

    // The written trajectory is valid, secret-free, and replays to the same fix.
    const text = readFileSync(trajectoryPath as string, 'utf8');
    expect(text).not.toContain('sk-e2e-secret-key');
    const saved = await readTrajectory(trajectoryPath as string);
    expect(saved.task).toEqual({ benchmark: 'mini_nightmare', name: 'shopping_cart' });
    expect(saved.result?.status).toBe('resolved');
    expect(saved.llm).toMatchObject({ provider: 'openai', model: 'scripted-model', endpoint: server.url });

    const replayEnv = createTestEnv(local, { path: sharedDataPath('mini_nightmare', 'shopping_cart'), entrypoint: 'python -m pytest --tb=no -s test.py', tools: Object.values(plugins) });
    try {
      const replayed = await createReplayAgent(saved).run(replayEnv, { task: 'shopping_cart' });
      expect(replayed.result).toMatchObject({ status: 'resolved', steps: 9, rewrites: 1 });
    } finally {
      await replayEnv.close();
    }
  });
});
