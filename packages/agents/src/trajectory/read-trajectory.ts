import { readFile } from 'node:fs/promises';
import { TrajectoryFormatError, TrajectoryVersionError } from '../errors/index.js';
import { TRAJECTORY_FORMAT_VERSION, type Trajectory } from './trajectory-types.js';

const VERSION_PATTERN = /^debug-gym\.trajectory\/v(\d+)$/;
const STATUSES = ['resolved', 'unresolved', 'timed_out', 'error', 'aborted'];

/** Read and validate a trajectory file. Throws TrajectoryFormatError / TrajectoryVersionError. */
export async function readTrajectory(path: string): Promise<Trajectory> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new TrajectoryFormatError(path, '', `cannot be read (${(cause as Error).message})`, { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new TrajectoryFormatError(path, '', `is not JSON (${(cause as Error).message})`, { cause });
  }
  return parseTrajectory(value, path);
}

/** Check that `value` is a trajectory this package reads; returns it typed. */
export function parseTrajectory(value: unknown, file = 'trajectory'): Trajectory {
  const fail = (path: string, problem: string): never => {
    throw new TrajectoryFormatError(file, path, problem);
  };
  if (!isObject(value)) return fail('', 'must be a JSON object');
  const version = value.formatVersion;
  if (version === undefined) return fail('formatVersion', `is missing (expected '${TRAJECTORY_FORMAT_VERSION}')`);
  if (typeof version !== 'string' || !VERSION_PATTERN.test(version)) return fail('formatVersion', `must look like '${TRAJECTORY_FORMAT_VERSION}', got ${JSON.stringify(version)}`);
  if (version !== TRAJECTORY_FORMAT_VERSION) throw new TrajectoryVersionError(file, version, TRAJECTORY_FORMAT_VERSION);
  const expect = (path: string, ok: boolean, what: string): void => {
    if (!ok) fail(path, `must be ${what}`);
  };
  expect('task', isObject(value.task), 'an object');
  expect('task.name', typeof (value.task as Record<string, unknown>).name === 'string', 'a string');
  expect('agent', isObject(value.agent), 'an object');
  expect('agent.type', typeof (value.agent as Record<string, unknown>).type === 'string', 'a string');
  expect('tools', Array.isArray(value.tools), 'an array');
  expect('steps', Array.isArray(value.steps), 'an array');
  (value.steps as unknown[]).forEach((step, index) => checkStep(step, `steps[${index}]`, expect));
  if (value.result !== null && value.result !== undefined) {
    const result = value.result;
    expect('result', isObject(result), 'an object or null');
    expect('result.status', STATUSES.includes((result as Record<string, unknown>).status as string), `one of ${STATUSES.join(', ')}`);
    expect('result.steps', typeof (result as Record<string, unknown>).steps === 'number', 'a number');
  }
  return value as unknown as Trajectory;
}

function checkStep(step: unknown, path: string, expect: (path: string, ok: boolean, what: string) => void): void {
  expect(path, isObject(step), 'an object');
  const s = step as Record<string, unknown>;
  expect(`${path}.step`, typeof s.step === 'number', 'a number');
  expect(`${path}.toolCall`, s.toolCall === null || (isObject(s.toolCall) && typeof s.toolCall.name === 'string'), 'null or a tool call with a name');
  expect(`${path}.response`, isObject(s.response), 'an object');
  const toolCall = (s.response as Record<string, unknown>).toolCall;
  expect(`${path}.response.toolCall`, toolCall === null || toolCall === undefined || (isObject(toolCall) && typeof toolCall.name === 'string'), 'null or a tool call with a name');
  expect(`${path}.observation`, isObject(s.observation) && typeof s.observation.text === 'string', 'an object with a text');
  expect(`${path}.usage`, isObject(s.usage) && typeof s.usage.promptTokens === 'number' && typeof s.usage.completionTokens === 'number', 'token counts');
  if (s.tokens !== undefined) {
    expect(`${path}.tokens`, isObject(s.tokens), 'an object');
    const tokens = s.tokens as Record<string, unknown>;
    for (const key of ['promptTokenIds', 'completionTokenIds', 'logprobs']) {
      const list = tokens[key];
      expect(`${path}.tokens.${key}`, list === undefined || (Array.isArray(list) && list.every((item) => typeof item === 'number')), 'a list of numbers');
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
