import * as z from 'zod';
import { REPLY_MODES } from './lean-replies.js';

const observation = z.object({ source: z.string(), observation: z.string(), raw: z.string().optional() });

/** The env info on the HTTP/WebSocket wire (snake_case), as a full reply has it; a lean reply has a subset. */
export const wireInfoSchema = z.object({
  step_observation: observation,
  all_observations: z.array(observation),
  eval_observation: observation.nullable(),
  last_eval: z
    .object({
      output: z.string(),
      exit_code: z.number().int().nullable(),
      timed_out: z.boolean(),
      duration_ms: z.number(),
      score: z.number(),
      max_score: z.number().nullable(),
      success: z.boolean(),
      details: z.record(z.string(), z.unknown()).optional(),
    })
    .nullable(),
  dir_tree: z.string(),
  current_breakpoints: z.string(),
  breakpoints: z.array(z.object({ file: z.string(), line: z.number().int(), condition: z.string().optional(), temporary: z.boolean().optional(), enabled: z.boolean().optional() })),
  instructions: z.string(),
  tools: z.array(z.object({ type: z.literal('function'), function: z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }) })),
  action_tool_call: z.object({ id: z.string().optional(), name: z.string(), arguments: z.union([z.record(z.string(), z.unknown()), z.string(), z.null()]).optional() }).nullable(),
  score: z.number(),
  max_score: z.number().nullable(),
  eval_timed_out: z.boolean(),
  resolved: z.boolean(),
  terminated: z.boolean(),
  done: z.boolean(),
  termination_reason: z.enum(['resolved', 'submitted', 'fatal_error']).nullable(),
  rewrite_counter: z.number().int(),
  step_count: z.number().int(),
  workdir: z.string(),
  launches: z.array(z.object({ source: z.string(), via: z.enum(['fork-server', 'cold']), reason: z.string().optional(), standby: z.boolean().optional() })),
});

/** A lean step's observation: the fields that changed (and the always-sent ones). */
export const leanWireInfoSchema = wireInfoSchema.partial().required({ step_observation: true, score: true, max_score: true, resolved: true, terminated: true, done: true, termination_reason: true, step_count: true });

/** `POST /step`'s `action`: one tool call. */
export const actionSchema = z.strictObject({
  name: z.string().describe('a tool name from the observation\'s `tools`'),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string(), z.null()]).optional().describe("the tool's arguments (an object, or its JSON text)"),
  id: z.string().optional().describe('the tool call id, echoed in action_tool_call'),
});

/** `GET /state`: the session and its episode. */
export const stateSchema = z.object({
  session_id: z.string(),
  episode_id: z.string().nullable(),
  step_count: z.number().int(),
  seed: z.number().int().nullable(),
  task: z.string().nullable(),
  backend: z.string().nullable(),
  score: z.number().nullable(),
  max_score: z.number().nullable(),
  resolved: z.boolean(),
  done: z.boolean(),
  termination_reason: z.string().nullable(),
  running: z.enum(['reset', 'step', 'fork']).nullable(),
  created_at: z.number(),
  last_activity_at: z.number(),
});

/** `GET /schema`: OpenEnv's {action, observation, state} JSON Schemas. */
export function openEnvSchemas(): Record<'action' | 'observation' | 'state', unknown> {
  return {
    action: z.toJSONSchema(actionSchema),
    observation: { ...z.toJSONSchema(wireInfoSchema), description: `A full reply; with reply: '${REPLY_MODES[1]}' a step sends a subset (see the server README).` },
    state: z.toJSONSchema(stateSchema),
  };
}
