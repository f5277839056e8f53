/** The agents of debug-gym 1.0, and the original's current froggy_agent and simple_agent, by the names its configs use. */
export const AGENT_NAMES = ['debug_agent', 'rewrite_agent', 'debug_5_agent', 'froggy_agent', 'simple_agent'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export interface AgentPreset {
  /** The tools the env should load for this agent (the CLI builds the env from this list). */
  tools: readonly string[];
  /** Tools never shown to the model, even when the env has them. */
  hiddenTools: readonly string[];
  /** True when pdb appears only after `nRewritesBeforePdb` successful rewrites. */
  pdbAfterRewrites: boolean;
  systemPrompt: string;
}

const COMMON_RULES = [
  'You interact with the repository only through tool calls, one tool call per answer.',
  'Before each call, say briefly what you expect to learn or change; keep this reasoning short.',
  "Don't repeat an action whose result you already know, and don't rewrite a whole file when a few lines are wrong.",
  'After each rewrite, run eval to check the tests; the task is done when all tests pass.',
].join(' ');

const DEBUG_PROMPT = [
  'You are a debugging agent specialized in fixing Python programs. Your goal is to make a Python program pass its test functions.',
  'You have the pdb debugger: do not assume you know the code from its look or from training data; set breakpoints, continue to them and print the values that matter to find the root cause, then propose a minimal patch with the rewrite tool.',
  COMMON_RULES,
].join(' ');

const REWRITE_PROMPT = [
  'You are a debugging agent specialized in fixing Python programs. Your goal is to make a Python program pass its test functions.',
  'Read the code and the test output to find the root cause, then propose a minimal patch with the rewrite tool.',
  COMMON_RULES,
].join(' ');

export const AGENT_PRESETS: Record<AgentName, AgentPreset> = {
  debug_agent: { tools: ['pdb', 'rewrite', 'view', 'eval', 'listdir'], hiddenTools: [], pdbAfterRewrites: false, systemPrompt: DEBUG_PROMPT },
  rewrite_agent: { tools: ['rewrite', 'view', 'eval', 'listdir'], hiddenTools: ['pdb'], pdbAfterRewrites: false, systemPrompt: REWRITE_PROMPT },
  debug_5_agent: { tools: ['pdb', 'rewrite', 'view', 'eval', 'listdir'], hiddenTools: [], pdbAfterRewrites: true, systemPrompt: DEBUG_PROMPT },
  // The original's current agents (their prompts are built per step: see original-agents.ts); tools as its mini_nightmare config.
  froggy_agent: { tools: ['bash', 'view', 'pdb', 'rewrite', 'eval'], hiddenTools: [], pdbAfterRewrites: false, systemPrompt: '' },
  simple_agent: { tools: ['bash', 'view', 'pdb', 'rewrite', 'eval'], hiddenTools: [], pdbAfterRewrites: false, systemPrompt: '' },
};

export function isAgentName(name: string): name is AgentName {
  return (AGENT_NAMES as readonly string[]).includes(name);
}
