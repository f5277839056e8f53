import type { EnvInfo } from '@debug-gym/core';
import { describe, expect, test } from 'vitest';
import { infoFieldOf, LeanReplies, toWire, WIRE_FIELDS, wireInfoSchema } from '../src/index.js';

const observation = { source: 'view', observation: 'text' };
function info(overrides: Partial<EnvInfo> = {}): EnvInfo {
  return {
    stepObservation: observation,
    allObservations: [observation],
    evalObservation: null,
    lastEval: null,
    dirTree: '/work/\n|-- app.py',
    currentBreakpoints: 'No breakpoints are set.',
    breakpoints: [],
    instructions: 'Fix it.',
    tools: [],
    actionToolCall: { name: 'view', arguments: { path: 'app.py' } },
    score: 0,
    maxScore: 1,
    evalTimedOut: false,
    resolved: false,
    terminated: false,
    terminationReason: null,
    rewriteCount: 0,
    stepCount: 1,
    workdir: '/work',
    launches: [],
    ...overrides,
  };
}

describe('the snake_case wire', () => {
  test('every EnvInfo field has one wire name; done rides along with terminated', () => {
    const wire = toWire(info({ rewriteCount: 3 }));
    expect(Object.keys(wire).sort()).toEqual([...WIRE_FIELDS.map(([, snake]) => snake), 'done'].sort());
    expect(Object.keys(info()).sort()).toEqual(WIRE_FIELDS.map(([camel]) => camel).sort());
    expect(wire).toMatchObject({ rewrite_counter: 3, step_observation: observation, done: false, current_breakpoints: 'No breakpoints are set.' });
    expect(infoFieldOf('dir_tree')).toBe('dirTree');
    expect(infoFieldOf('dirTree')).toBe('dirTree');
    expect(infoFieldOf('done')).toBe('terminated');
    expect(infoFieldOf('nope')).toBeUndefined();
  });

  test('launches keep how each process started, a fork-server standby included, through the published schema', () => {
    const launches = [{ source: 'eval', via: 'fork-server' as const, standby: true }, { source: 'pdb', via: 'cold' as const, reason: 'shadowed' }];
    expect(wireInfoSchema.parse(toWire(info({ launches }))).launches).toEqual(launches);
  });

  test("last_eval's names are snake_case; its details' identifiers too, test ids are left as they are", () => {
    const lastEval = { output: 'ok', exitCode: 0, timedOut: false, durationMs: 12, score: 1, maxScore: 1, success: true, details: { collectionError: false, parsedTests: 2, 'tests/test_a.py::test_fooBar': 'PASSED' } };
    expect(toWire({ lastEval }).last_eval).toEqual({
      output: 'ok',
      exit_code: 0,
      timed_out: false,
      duration_ms: 12,
      score: 1,
      max_score: 1,
      success: true,
      details: { collection_error: false, parsed_tests: 2, 'tests/test_a.py::test_fooBar': 'PASSED' },
    });
    expect(toWire({ lastEval: null })).toEqual({ last_eval: null });
  });
});

describe('lean replies', () => {
  test('a lean reply sends the always-sent fields and what changed since the previous reply, by value', () => {
    const replies = new LeanReplies();
    expect(replies.select(info())).toEqual(info());
    const same = replies.select(info({ tools: [] }), { reply: 'lean' });
    expect(Object.keys(same).sort()).toEqual(['maxScore', 'resolved', 'score', 'stepCount', 'stepObservation', 'terminated', 'terminationReason']);
    const changed = replies.select(info({ dirTree: '/work/\n|-- app.py\n|-- new.py', actionToolCall: { name: 'eval' } }), { reply: 'lean' });
    expect(changed).toMatchObject({ dirTree: expect.stringContaining('new.py'), actionToolCall: { name: 'eval' } });
    const after = replies.select(info({ dirTree: '/work/\n|-- app.py\n|-- new.py', actionToolCall: { name: 'eval' } }), { reply: 'lean', include: ['dir_tree', 'workdir'] });
    expect(after).toMatchObject({ dirTree: expect.stringContaining('new.py'), workdir: '/work' });
    expect(after).not.toHaveProperty('actionToolCall');
  });

  test('allObservations is sent only when hooks added to the step observation', () => {
    const replies = new LeanReplies();
    replies.select(info());
    expect(replies.select(info(), { reply: 'lean' })).not.toHaveProperty('allObservations');
    const note = { source: 'pdb', observation: 'restarted' };
    expect(replies.select(info({ allObservations: [observation, note] }), { reply: 'lean' }).allObservations).toEqual([observation, note]);
  });
});
