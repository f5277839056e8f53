import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgent, createOpenAIModel, type Trajectory } from '@debug-gym/agents';
import { RepoEnv } from '@debug-gym/core';
import { LocalTerminal } from '@debug-gym/terminal';
import { testPython, testdir } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewrite from '@debug-gym/tool-rewrite';
import view from '@debug-gym/tool-view';
import { beforeAll, describe, expect, it } from 'vitest';
import { ATIF_SCHEMA_STRICT, atifRuleProblems, exportTrajectories, fromAtif, loadTrajectories, schemaProblems, toAtif, toSft, type LoadedTrajectory } from '../src/index.js';

const demoRepo = fileURLToPath(new URL('../../cli/demo/repo', import.meta.url));
const CALLS = [
  { name: 'eval', arguments: '{}' },
  { name: 'rewrite', arguments: '{"path": "shopping.py", "start": 11, "new_code": "    for index in range(len(items)):"}' },
  { name: 'eval', arguments: '{}' },
];

/**
 * A chat-completions server answering as vLLM does with `return_token_ids` and `logprobs`: the prompt's
 * token ids (here one id per message, so they grow with the history), the answer's ids, one logprob each.
 */
async function startVllmLike(): Promise<{ url: string; bodies: Array<Record<string, unknown>>; close(): Promise<void> }> {
  const bodies: Array<Record<string, unknown>> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: unknown[] } & Record<string, unknown>;
      bodies.push(body);
      const turn = bodies.length - 1;
      const call = CALLS[turn] ?? CALLS[0]!;
      const completionIds = [100 + turn, 200 + turn, 300 + turn, 400 + turn];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${turn}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'Qwen/Qwen3-8B',
          prompt_token_ids: body.messages.map((_, index) => 10 + index),
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: null, tool_calls: [{ id: `call_${turn}`, type: 'function', function: call }] },
              logprobs: { content: completionIds.map((id, index) => ({ token: `token_id:${id}`, logprob: -(index + 1) / 8, bytes: null, top_logprobs: [] })) },
              finish_reason: 'tool_calls',
              token_ids: completionIds,
            },
          ],
          usage: { prompt_tokens: body.messages.length, completion_tokens: completionIds.length, total_tokens: body.messages.length + completionIds.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let episode: LoadedTrajectory;
let runDir: string;
let bodies: Array<Record<string, unknown>>;

beforeAll(async () => {
  runDir = testdir({});
  const server = await startVllmLike();
  bodies = server.bodies;
  try {
    const llm = createOpenAIModel({ name: 'qwen', model: 'Qwen/Qwen3-8B', endpoint: server.url, generateKwargs: { logprobs: true, return_token_ids: true }, retry: { maxAttempts: 1 } });
    const agent = createAgent('rewrite_agent', { llm, maxSteps: 5 });
    const env = new RepoEnv({ path: demoRepo, entrypoint: 'python -m pytest -sq .', terminal: new LocalTerminal({ python: testPython }), tools: [view, evalTool, rewrite] as never });
    try {
      const outcome = await agent.run(env, { task: 'demo-repo', outputDir: runDir, config: { run_id: 'rollout-test' } });
      if (outcome.result.status !== 'resolved') throw new Error(`the rollout did not resolve: ${JSON.stringify(outcome.result)}`);
    } finally {
      await env.close();
    }
  } finally {
    await server.close();
  }
  [episode] = (await loadTrajectories([runDir])) as [LoadedTrajectory];
});

/** What the rollout's step k (0-based) must carry: the ids the server sent for that request. */
function expectedTokens(turn: number) {
  const promptLength = (bodies[turn]?.messages as unknown[]).length;
  return {
    prompt_token_ids: Array.from({ length: promptLength }, (_, index) => 10 + index),
    completion_token_ids: [100 + turn, 200 + turn, 300 + turn, 400 + turn],
    logprobs: [-0.125, -0.25, -0.375, -0.5],
  };
}

describe('a rollout with token ids and logprobs, exported for training', () => {
  it('asked the server for them and kept them on every step of the trajectory', () => {
    expect(bodies).toHaveLength(3);
    expect(bodies.every((body) => body.logprobs === true && body.return_token_ids === true)).toBe(true);
    expect(episode.trajectory.steps.map((step) => step.tokens)).toEqual([0, 1, 2].map((turn) => {
      const expected = expectedTokens(turn);
      return { promptTokenIds: expected.prompt_token_ids, completionTokenIds: expected.completion_token_ids, logprobs: expected.logprobs };
    }));
  });

  it('SFT: each answer\'s token ids and logprobs, pointing at that answer in messages', async () => {
    const record = toSft(episode.trajectory, { runId: episode.runId, source: episode.source });
    expect(record.rollout).toEqual([0, 1, 2].map((turn) => ({ step: turn + 1, message_index: 2 + 2 * turn, ...expectedTokens(turn) })));
    for (const turn of record.rollout ?? []) expect(record.messages[turn.message_index]?.role).toBe('assistant');
    // The prompt the server tokenized for step k is exactly the messages before its answer.
    expect(record.rollout?.map((turn) => turn.prompt_token_ids?.length)).toEqual(record.rollout?.map((turn) => turn.message_index));
    const out = join(testdir({}), 'sft.jsonl');
    const [item] = await exportTrajectories([episode], { format: 'sft', out });
    expect(item?.written).toBe(out);
    const line = JSON.parse(readFileSync(out, 'utf8').trim()) as typeof record;
    expect(line.rollout).toEqual(record.rollout);
  });

  it('SFT: no rollout field when the endpoint returned no tokens', () => {
    const plain: Trajectory = { ...episode.trajectory, steps: episode.trajectory.steps.map(({ tokens: _tokens, ...step }) => step) };
    expect(toSft(plain, { runId: 'r', source: 's' })).not.toHaveProperty('rollout');
  });

  it('ATIF: the agent steps carry prompt_token_ids, completion_token_ids and logprobs in metrics, valid v1.4, and read back identical', () => {
    const atif = toAtif(episode.trajectory, { runId: episode.runId, source: episode.source });
    const agentSteps = atif.steps.filter((step) => step.source === 'agent');
    expect(agentSteps.map((step) => ({ prompt_token_ids: step.metrics?.prompt_token_ids, completion_token_ids: step.metrics?.completion_token_ids, logprobs: step.metrics?.logprobs }))).toEqual(
      [0, 1, 2].map(expectedTokens),
    );
    expect(agentSteps.every((step) => step.metrics?.completion_tokens === step.metrics?.completion_token_ids?.length)).toBe(true);
    expect(schemaProblems(ATIF_SCHEMA_STRICT, atif)).toEqual([]);
    expect(atifRuleProblems(atif)).toEqual([]);
    expect(fromAtif(JSON.parse(JSON.stringify(atif)))).toEqual(episode.trajectory);
  });
});
