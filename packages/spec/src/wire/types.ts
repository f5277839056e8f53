import type { ToolSchema } from '../tool/tool-plugin-v1.js';

/** A function call as an LLM emits it. `arguments` may be an object or its JSON text. */
export interface ToolCall {
  id?: string;
  name: string;
  arguments?: Record<string, unknown> | string | null;
}

/** Text shown to the agent. `source` is the tool name, or `env` for messages of the environment itself. */
export interface Observation {
  source: string;
  observation: string;
  /** The tool's text before normalization (`\r`, ANSI escapes), when normalizing changed it; for trajectories. */
  raw?: string;
}

/** What `setHiddenTools` changed: what the agent may now see and call, and what newly shown tools said when they started. */
export interface HiddenToolsChange {
  tools: ToolSchema[];
  instructions: string;
  observations: Observation[];
}
