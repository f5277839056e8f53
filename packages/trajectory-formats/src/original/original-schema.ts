/**
 * The original debug-gym's trajectory log (HEAD `trajectory.json`) as a JSON Schema, written from its
 * source (microsoft/debug-gym b19cb6a2: `BaseAgent.build_trajectory`, `HistoryTracker.json`,
 * `LLM.__call__`, `OpenAILLM.define_tools` / `AnthropicLLM.define_tools`).
 * Strict: an object that passes holds exactly the original's fields, so its analysis scripts and
 * viewers (`analysis/json_log_viewer`, `trajectory_filtering`) read it.
 */
const toolCall = {
  type: 'object',
  required: ['id', 'name', 'arguments'],
  additionalProperties: false,
  properties: { id: { type: 'string' }, name: { type: 'string', minLength: 1 }, arguments: { type: ['object', 'string'] } },
} as const;

/** A prompt message: chat-completions (content text), or Anthropic-flavoured (content blocks). */
const message = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'user', 'assistant', 'tool'] },
    content: { type: ['string', 'null', 'array'] },
    tool_calls: { type: 'array' },
    tool_call_id: { type: 'string' },
  },
} as const;

/**
 * `system_message` / `problem_message`: what `build_system_prompt` / `build_instance_prompt` return, a
 * `{role, content}` message; plain text as our exports before this fix wrote it is still read.
 */
const headMessage = { anyOf: [{ type: 'null' }, { type: 'string' }, { ...message, required: ['role', 'content'] }] } as const;

const pair = {
  type: 'object',
  required: ['prompt'],
  additionalProperties: false,
  properties: {
    prompt: { type: 'array', items: message },
    response: { type: 'string' },
    reasoning_response: { type: 'string' },
    tool: toolCall,
    token_usage: {
      type: 'object',
      required: ['prompt', 'response'],
      additionalProperties: false,
      properties: { prompt: { type: 'integer', minimum: 0 }, response: { type: 'integer', minimum: 0 } },
    },
    thinking_blocks: { type: 'array' },
  },
} as const;

const resetEntry = {
  type: 'object',
  required: ['step_id', 'reasoning', 'content', 'action', 'obs', 'prompt_response_pairs', 'system_message', 'problem_message'],
  additionalProperties: false,
  properties: {
    step_id: { const: 0 },
    reasoning: { type: 'null' },
    content: { type: 'null' },
    action: { type: 'null' },
    obs: { type: 'string' },
    prompt_response_pairs: { type: 'null' },
    system_message: headMessage,
    problem_message: headMessage,
  },
} as const;

const stepEntry = {
  type: 'object',
  // `prompt_response_pairs` is left out by `HistoryTracker.json` when the step had no LLM response.
  required: ['step_id', 'content', 'reasoning', 'action', 'obs'],
  additionalProperties: false,
  properties: {
    step_id: { type: 'integer', minimum: 1 },
    content: { type: ['string', 'null'] },
    reasoning: { type: ['string', 'null'] },
    action: { anyOf: [{ type: 'null' }, toolCall] },
    obs: { type: 'string' },
    prompt_response_pairs: { type: 'array', items: pair },
  },
} as const;

export const ORIGINAL_TRAJECTORY_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://github.com/microsoft/debug-gym/trajectory.json',
  title: "debug-gym (original) trajectory.json",
  type: 'object',
  required: ['problem', 'config', 'tools', 'uuid', 'success', 'log', 'agent_type', 'logger'],
  additionalProperties: false,
  properties: {
    problem: { type: 'string', minLength: 1 },
    config: { type: 'object' },
    tools: {
      type: 'array',
      // `llm.define_tools(env.tools)`: OpenAI's function schemas, or the Anthropic backend's `{name, description, input_schema}`.
      items: {
        anyOf: [
          {
            type: 'object',
            required: ['type', 'function'],
            properties: {
              type: { const: 'function' },
              function: { type: 'object', required: ['name', 'description', 'parameters'], properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object' } } },
            },
          },
          { type: 'object', required: ['name', 'description', 'input_schema'], properties: { name: { type: 'string' }, description: { type: 'string' }, input_schema: { type: 'object' } } },
        ],
      },
    },
    uuid: { type: 'string' },
    success: { type: 'boolean' },
    log: { type: 'array', minItems: 1, items: [resetEntry], additionalItems: stepEntry },
    agent_type: { type: 'string' },
    logger: { type: 'string' },
  },
} as const;
