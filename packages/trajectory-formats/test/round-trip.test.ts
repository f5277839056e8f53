import type { Trajectory, TrajectoryStep } from '@debug-gym/agents';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ATIF_SCHEMA_STRICT,
  atifRuleProblems,
  fromAtif,
  fromOriginal,
  loadTrajectories,
  ORIGINAL_TRAJECTORY_SCHEMA,
  schemaProblems,
  toAtif,
  toOriginal,
  type AtifTrajectory,
  type LoadedTrajectory,
  type OriginalStepEntry,
} from '../src/index.js';

/** Through JSON text, as a file would carry it. */
const viaJson = <T>(value: T): unknown => JSON.parse(JSON.stringify(value));

/** What the original format carries of a step: the call, the answer, the observation, the tokens, the prompt. */
const originalCore = (step: TrajectoryStep) => ({
  step: step.step,
  prompt: step.prompt,
  content: step.response.content,
  reasoning: step.response.reasoning,
  answered: step.response.toolCall,
  executed: step.toolCall,
  observation: step.observation.text,
  tokens: [step.usage.promptTokens, step.usage.completionTokens],
});

let episodes: LoadedTrajectory[];
let demo: LoadedTrajectory;

beforeAll(async () => {
  episodes = await loadTrajectories([inject('runDir')]);
  demo = episodes.find((entry) => entry.trajectory.task.name === 'demo-repo') as LoadedTrajectory;
});

describe('the recorded episodes', () => {
  it('are a resolved debugging session through the OpenAI client and an unresolved mini-nightmare replay', () => {
    expect(episodes.map((entry) => [entry.trajectory.task.name, entry.trajectory.result?.status, entry.format, entry.runId])).toEqual([
      ['demo-repo', 'resolved', 'debug-gym', 'formats-test'],
      ['shopping_cart', 'unresolved', 'debug-gym', 'formats-test'],
    ]);
    const steps = demo.trajectory.steps;
    expect(steps.map((step) => step.toolCall?.name ?? null)).toEqual(['eval', 'pdb', 'pdb', null, 'pdb', 'rewrite', 'rewrite', 'eval']);
    expect(steps[5]?.toolCall?.arguments).toBe('{{{');
  });
});

describe('ATIF', () => {
  it('exports each episode as valid ATIF v1.4 and reads it back identical', () => {
    for (const entry of episodes) {
      const atif = toAtif(entry.trajectory, { runId: entry.runId, source: entry.source });
      expect(schemaProblems(ATIF_SCHEMA_STRICT, atif)).toEqual([]);
      expect(atifRuleProblems(atif)).toEqual([]);
      expect(fromAtif(viaJson(atif))).toEqual(entry.trajectory);
    }
  });

  it('maps a debug-gym step onto ATIF fields, not only onto extra', () => {
    const atif = toAtif(demo.trajectory, { runId: demo.runId, source: demo.source });
    expect(atif).toMatchObject({ schema_version: 'ATIF-v1.4', session_id: 'formats-test:demo-repo', agent: { name: 'debug-gym', model_name: 'scripted' } });
    expect(atif.steps.map((step) => step.source)).toEqual(['system', 'user', ...Array(8).fill('agent')]);
    expect(atif.steps[1]?.message).toMatch(/The program doesn't behave as intended/);
    const first = atif.steps[2];
    expect(first).toMatchObject({
      step_id: 3,
      message: 'Let me run the tests first.',
      reasoning_content: 'Two totals are wrong; the discount test passes.',
      tool_calls: [{ tool_call_id: 'call_1', function_name: 'eval', arguments: {} }],
      observation: { results: [{ source_call_id: 'call_1' }] },
      metrics: { prompt_tokens: 900, completion_tokens: 40, cost_usd: 0.00265 },
    });
    expect(first?.observation?.results[0]?.content).toMatch(/FAILED test_shopping\.py::test_total_without_discount/);
    // No call: the agent's note is an observation with no call to answer. Broken arguments: {} and the text in extra.
    expect(atif.steps[5]).toMatchObject({ message: 'The loop looks odd.', observation: { results: [{ content: expect.stringMatching(/^No tool call was generated/) }] } });
    expect(atif.steps[5]?.tool_calls).toBeUndefined();
    expect(atif.steps[7]).toMatchObject({ tool_calls: [{ function_name: 'rewrite', arguments: {} }], extra: { debug_gym: { raw_arguments: '{{{' } } });
    expect(atif.final_metrics).toEqual({ total_prompt_tokens: 15_500, total_completion_tokens: 200, total_cost_usd: 0.04075, total_steps: 10 });
  });

  it("reads another agent's ATIF file: its agent steps, their calls and results", () => {
    const foreign = {
      schema_version: 'ATIF-v1.6',
      session_id: 'abc-123',
      agent: { name: 'other-agent', version: '2.0', model_name: 'some-model' },
      steps: [
        { step_id: 1, source: 'user', message: 'Fix the failing test.', timestamp: '2025-10-11T10:30:00Z' },
        {
          step_id: 2,
          source: 'agent',
          message: 'Looking at two files.',
          tool_calls: [
            { tool_call_id: 'a', function_name: 'read', arguments: { path: 'x.py' } },
            { tool_call_id: 'b', function_name: 'read', arguments: { path: 'y.py' } },
          ],
          observation: { results: [{ source_call_id: 'a', content: 'x' }, { source_call_id: 'b', content: 'y' }] },
          metrics: { prompt_tokens: 10, completion_tokens: 3 },
          trajectory_field_from_a_newer_version: true,
        },
      ],
    };
    const read = fromAtif(foreign, 'foreign.json');
    expect(read).toMatchObject({ task: { name: 'abc-123' }, agent: { type: 'other-agent' }, llm: { model: 'some-model' }, reset: { observation: 'Fix the failing test.' }, result: null });
    expect(read.steps).toEqual([
      expect.objectContaining({ step: 1, toolCall: { id: 'a', name: 'read', arguments: { path: 'x.py' } }, observation: { source: 'read', text: 'x\n\ny' }, usage: { promptTokens: 10, completionTokens: 3 }, costUsd: null }),
    ]);
  });

  it.each([
    ['step ids that skip', (atif: AtifTrajectory) => void ((atif.steps[1] as { step_id: number }).step_id = 5), /steps\[1\]\.step_id must be 2/],
    ['a result for a call of another step', (atif: AtifTrajectory) => void ((atif.steps[2]?.observation?.results[0] as { source_call_id: string }).source_call_id = 'call_9'), /'call_9' is not a tool_call_id of this step/],
    ['reasoning on a user step', (atif: AtifTrajectory) => void ((atif.steps[1] as { reasoning_content?: string }).reasoning_content = 'x'), /steps\[1\]\.reasoning_content only agent steps/],
    ['a step without source', (atif: AtifTrajectory) => void delete (atif.steps[0] as { source?: string }).source, /steps\[0\] lacks the field 'source'/],
  ])('refuses %s, naming the field', (_name, breakIt, message) => {
    const atif = viaJson(toAtif(demo.trajectory, { runId: demo.runId, source: demo.source })) as AtifTrajectory;
    breakIt(atif);
    expect(() => fromAtif(atif, 'broken.json')).toThrow(message);
    expect(() => fromAtif(atif, 'broken.json')).toThrow(/^broken\.json is not a valid ATIF trajectory/);
  });
});

describe("the original debug-gym's trajectory.json", () => {
  it('is what the export writes, per the schema, and the steps read back are the same', () => {
    for (const entry of episodes) {
      const original = toOriginal(entry.trajectory, { runId: entry.runId, source: entry.source });
      expect(schemaProblems(ORIGINAL_TRAJECTORY_SCHEMA, original)).toEqual([]);
      const back: Trajectory = fromOriginal(viaJson(original));
      expect(back.steps.map(originalCore)).toEqual(entry.trajectory.steps.map(originalCore));
      expect(back.task.name).toBe(entry.trajectory.task.name);
      expect(back.reset?.observation).toBe(entry.trajectory.reset?.observation);
      expect(toOriginal(back, { runId: entry.runId, source: entry.source })).toEqual(original);
    }
  });

  it("fills the original's fields: reset entry, actions, prompt/response pairs, empty_tool_response", () => {
    const original = toOriginal(demo.trajectory, { runId: demo.runId, source: demo.source });
    expect(original).toMatchObject({ problem: 'demo-repo', uuid: 'formats-test', success: true, agent_type: 'debug_agent', logger: demo.source });
    // As the original's build_system_prompt / build_instance_prompt return them: message objects.
    expect(original.log[0]).toMatchObject({
      step_id: 0,
      action: null,
      prompt_response_pairs: null,
      system_message: { role: 'system', content: expect.stringMatching(/debug/i) },
      problem_message: { role: 'user', content: expect.stringMatching(/^Instructions/) },
    });
    expect(Object.keys((original.log[0] as { system_message: object }).system_message)).toEqual(['role', 'content']);
    const step = original.log[1] as Required<OriginalStepEntry>;
    expect(step).toMatchObject({ step_id: 1, content: 'Let me run the tests first.', reasoning: 'Two totals are wrong; the discount test passes.', action: { id: 'call_1', name: 'eval', arguments: {} } });
    expect(step.prompt_response_pairs[0]).toMatchObject({ response: 'Let me run the tests first.', reasoning_response: 'Two totals are wrong; the discount test passes.', tool: { name: 'eval' }, token_usage: { prompt: 900, response: 40 } });
    expect(step.prompt_response_pairs[0]?.prompt.map((message) => message.role)).toEqual(['system', 'user']);
    expect((original.log[2] as Required<OriginalStepEntry>).prompt_response_pairs[0]?.prompt[2]).toEqual({
      role: 'assistant',
      content: 'Let me run the tests first.',
      reasoning_content: 'Two totals are wrong; the discount test passes.',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'eval', arguments: '{}' } }],
    });
    // A step without a call, as the original's LLM.__call__ logs it: the same call in both places.
    const noCall = original.log[4] as Required<OriginalStepEntry>;
    expect(noCall.action).toEqual({ id: 'empty_tool_response', name: 'empty_tool_response', arguments: {} });
    expect(noCall.prompt_response_pairs[0]?.tool).toEqual({ id: 'empty_tool_response', name: 'empty_tool_response', arguments: {} });
    const back = fromOriginal(viaJson(original));
    expect(back.steps[3]?.toolCall).toBeNull();
    expect(back.steps[3]?.response.toolCall).toBeNull();
  });

  it.each([
    ['no success field', (value: Record<string, unknown>) => void delete value.success, /lacks the field 'success'/],
    ['a field the original does not have', (value: Record<string, unknown>) => void ((value.log as Array<Record<string, unknown>>)[1]!.score = 3), /log\[1\] has an unknown field 'score'/],
    ['steps out of order', (value: Record<string, unknown>) => void ((value.log as Array<Record<string, unknown>>)[2]!.step_id = 7), /log\[2\]\.step_id must be 2/],
  ])('refuses a log with %s, naming the field', (_name, breakIt, message) => {
    const value = viaJson(toOriginal(demo.trajectory, { runId: demo.runId, source: demo.source })) as Record<string, unknown>;
    breakIt(value);
    expect(() => fromOriginal(value, 'old.json')).toThrow(message);
  });
});
