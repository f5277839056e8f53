// Files as the original debug-gym writes them, and our exports as its own readers read them.
//
// `fixtures/original/shopping_cart/trajectory.json` was written by the original's own code
// (microsoft/debug-gym ORIGINAL_COMMIT: BaseAgent.run with FroggyAgent, HistoryTracker.json,
// OpenAILLM.define_tools / parse_tool_call_response / convert_*_to_message, save_trajectory) through
// `test/original-code/original_code.py write`, which executes those functions from a copy of the
// original's source at test time (nothing of it is copied into this repository). When such a copy
// and a Python with jinja2 and flask are here, the tests below write the file again with the
// original's code and compare, and run the original's readers (load_trajectory, gather_results,
// analysis/tool_use, the json_log_viewer Flask app) on it and on our exports.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { exportTrajectories, fromOriginal, loadTrajectories, ORIGINAL_TRAJECTORY_SCHEMA, schemaProblems, toOriginal, type LoadedTrajectory, type OriginalTrajectory } from '../src/index.js';

const ORIGINAL_COMMIT = 'b19cb6a20fadc88890d8e954694741d881ab061b';
const here = fileURLToPath(new URL('.', import.meta.url));
const fixture = join(here, 'fixtures', 'original', 'shopping_cart', 'trajectory.json');
const driver = join(here, 'original-code', 'original_code.py');
const script = join(here, 'original-code', 'episode-script.json');
const upstream = process.env.DEBUG_GYM_ORIGINAL_SOURCE ?? '/work/.mirror/microsoft+debug-gym/repo';
const python = process.env.DEBUG_GYM_ORIGINAL_PYTHON ?? 'python3';

/** Why the original's code cannot run here, or null when it can. */
function originalUnavailable(): string | null {
  if (!existsSync(upstream)) return `no copy of microsoft/debug-gym at ${upstream} (set DEBUG_GYM_ORIGINAL_SOURCE to a checkout or git directory)`;
  const probe = spawnSync(python, ['-c', 'import jinja2, flask'], { encoding: 'utf8' });
  if (probe.status !== 0) return `${python} cannot import jinja2 and flask (set DEBUG_GYM_ORIGINAL_PYTHON)`;
  const commit = spawnSync('git', [`--git-dir=${upstream}`, 'cat-file', '-e', `${ORIGINAL_COMMIT}^{commit}`]);
  if (existsSync(join(upstream, 'HEAD')) && commit.status !== 0) return `${upstream} does not have commit ${ORIGINAL_COMMIT}`;
  return null;
}
const unavailable = originalUnavailable();
if (unavailable) {
  const message = `original-code tests skipped: ${unavailable}`;
  if (process.env.DEBUG_GYM_REQUIRE_ORIGINAL === '1') throw new Error(message);
  console.warn(`\n*** WARNING: ${message} ***\n`);
}

function runOriginal(args: string[]): string {
  const result = spawnSync(python, [driver, ...args.slice(0, 1), upstream, ORIGINAL_COMMIT, ...args.slice(1)], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`original_code.py ${args[0]} failed (${result.status}):\n${result.stderr}`);
  return result.stdout;
}

interface OriginalReading {
  file: string;
  load_trajectory: { tool: { id: string; name: string; arguments: unknown }; response: string | null; reasoning: string | null; prompt_messages: number; token_usage: { prompt: number; response: number } | null }[];
  gather_results: { success: boolean; uuid: string; agent_type: string; problem: string }[];
  analysis: Record<string, Record<string, unknown>[]>;
  viewer: { load: number; index: number; statistics: number; statistics_has_problem: boolean; steps: number; step0_system_role: string | null };
}

function readWithOriginal(files: string[]): OriginalReading[] {
  return runOriginal(['read', ...files])
    .split('\n')
    .filter((line) => line.startsWith('RESULT '))
    .map((line) => JSON.parse(line.slice('RESULT '.length)) as OriginalReading);
}

const fixtureJson = (): OriginalTrajectory => JSON.parse(readFileSync(fixture, 'utf8')) as OriginalTrajectory;
const made: string[] = [];
const tempDir = (): string => made[made.push(mkdtempSync(join(tmpdir(), 'debug-gym-original-'))) - 1] as string;
let episodes: LoadedTrajectory[];

beforeAll(async () => {
  episodes = await loadTrajectories([inject('runDir')]);
});
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('a trajectory.json exactly as the original writes it', () => {
  it('imports: message objects in log[0], a no-call step comes back as no call, and exports back identical', () => {
    const original = fixtureJson();
    expect(original.log[0]).toMatchObject({ system_message: { role: 'system' }, problem_message: { role: 'user', content: expect.stringMatching(/^Instructions: /) } });
    const trajectory = fromOriginal(JSON.parse(JSON.stringify(original)), fixture);
    expect(trajectory.agent.type).toBe('froggy_agent');
    expect(trajectory.steps.map((step) => step.toolCall?.name ?? null)).toEqual(['view', null, 'pdb', 'eval']);
    const noCall = trajectory.steps[1];
    expect(noCall?.response).toEqual({ content: 'I am not sure what to do.', reasoning: null, toolCall: null });
    expect(noCall?.observation.text).toMatch(/^No tool call was generated by the agent/);
    expect(trajectory.steps[0]?.response.reasoning).toBe('The total skips an item.');
    expect(trajectory.steps[3]?.prompt).toHaveLength(8);
    expect(trajectory.steps.map((step) => step.usage.promptTokens)).toEqual([900, 1200, 1400, 1600]);
    expect(toOriginal(trajectory, { runId: original.uuid, source: original.logger })).toEqual(original);
  });

  it('a step the original logged without an LLM response (no prompt_response_pairs) or an Anthropic-flavoured prompt imports too', () => {
    const original = fixtureJson() as unknown as { tools: unknown[]; log: Record<string, unknown>[] };
    delete original.log[3]!.prompt_response_pairs;
    original.tools = [{ name: 'view', description: 'View a file.', input_schema: { type: 'object', properties: { path: { type: ['string'] } } } }];
    const pairs = original.log[4]!.prompt_response_pairs as { prompt: unknown[] }[];
    pairs[0]!.prompt = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'task' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_1', name: 'view', input: { path: 'a.py' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'code' }] },
    ];
    const trajectory = fromOriginal(original);
    expect(trajectory.tools[0]?.function.name).toBe('view');
    expect(trajectory.steps[2]?.prompt).toEqual([]);
    expect(trajectory.steps[2]?.toolCall?.name).toBe('pdb');
    expect(trajectory.steps[3]?.prompt.slice(2)).toEqual([
      { role: 'assistant', content: 'Looking.', reasoning: 'hmm', toolCalls: [{ id: 'toolu_1', name: 'view', arguments: { path: 'a.py' } }] },
      { role: 'tool', toolCallId: 'toolu_1', name: '', content: 'code' },
    ]);
  });

  it('our exports pass the schema that the original-written file passes', () => {
    expect(schemaProblems(ORIGINAL_TRAJECTORY_SCHEMA, fixtureJson())).toEqual([]);
    for (const entry of episodes) expect(schemaProblems(ORIGINAL_TRAJECTORY_SCHEMA, toOriginal(entry.trajectory, { runId: entry.runId, source: entry.source }))).toEqual([]);
  });
});

describe.skipIf(unavailable !== null)("the original's own code", () => {
  it('writes the fixture byte for byte (BaseAgent.run + save_trajectory at the pinned commit)', () => {
    const out = tempDir();
    runOriginal(['write', out, script]);
    expect(readFileSync(join(out, 'shopping_cart', 'trajectory.json'), 'utf8')).toBe(readFileSync(fixture, 'utf8'));
  });

  it('reads our exports with load_trajectory, gather_results, the tool_use analyses and the json_log_viewer', async () => {
    const out = tempDir();
    await exportTrajectories(episodes, { format: 'original', out });
    const demo = episodes.find((entry) => entry.trajectory.task.name === 'demo-repo') as LoadedTrajectory;
    const [ours, theirs] = readWithOriginal([join(out, 'demo-repo', 'trajectory.json'), fixture]);
    if (!ours || !theirs) throw new Error('the original readers gave no result');

    // load_trajectory (agents/utils.py): one LLMResponse per step, a no-call step as empty_tool_response, like the original's own file.
    const steps = demo.trajectory.steps;
    expect(ours.load_trajectory.map((response) => response.tool.name)).toEqual(steps.map((step) => step.toolCall?.name ?? step.response.toolCall?.name ?? 'empty_tool_response'));
    expect(ours.load_trajectory[3]).toMatchObject({ tool: { id: 'empty_tool_response', name: 'empty_tool_response', arguments: {} }, response: 'The loop looks odd.' });
    expect(theirs.load_trajectory[1]).toMatchObject({ tool: { id: 'empty_tool_response', name: 'empty_tool_response', arguments: {} } });
    expect(ours.load_trajectory.map((response) => response.token_usage)).toEqual(steps.map((step) => ({ prompt: step.usage.promptTokens, response: step.usage.completionTokens })));
    expect(ours.load_trajectory.map((response) => response.prompt_messages)).toEqual(steps.map((step) => step.prompt.length));

    // gather_results.py and the tool_use scripts.
    expect(ours.gather_results).toEqual(expect.arrayContaining([expect.objectContaining({ success: true, uuid: 'formats-test', agent_type: 'debug_agent', problem: 'demo-repo' })]));
    expect(theirs.gather_results[0]).toMatchObject({ success: true, agent_type: 'FroggyAgent', problem: 'shopping_cart' });
    expect(ours.analysis.episode_length?.[0]).toMatchObject({ success: true, episode_length: steps.length + 1 });
    const counter = ours.analysis.tool_use_categories?.[0]?.tool_counter as Record<string, number>;
    expect(counter.eval).toBe(2);
    expect(counter.pdb).toBe(3);
    expect(ours.analysis.response_tokens?.[0]).toMatchObject({ prompt_tokens: steps.reduce((sum, step) => sum + step.usage.promptTokens, 0) / (steps.length + 1) });

    // The json_log_viewer loads the file, renders its pages and serves every step; log[0]'s system message is a message object.
    for (const reading of [ours, theirs]) {
      expect(reading.viewer).toMatchObject({ load: 200, index: 200, statistics: 200, statistics_has_problem: true, step0_system_role: 'system' });
    }
    expect(ours.viewer.steps).toBe(steps.length + 1);
  });
});
