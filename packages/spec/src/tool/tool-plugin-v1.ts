import type { ToolContext } from '../context/tool-context.js';
import type { PluginMeta } from '../plugin/plugin-meta.js';
import type { EvalEvent, RewriteEvent, StepEvent } from '../wire/events.js';
import type { JsonSchemaObject } from './json-schema.js';

/**
 * What a `@debug-gym/tool-*` package default-exports. Versioned by a literal tag: a future
 * incompatible shape becomes `ToolPluginV2` beside this one.
 */
export interface ToolPluginV1<Options = Record<string, unknown>> {
  readonly specificationVersion: 'tool-plugin-v1';
  /**
   * The package and version this tool ships in, and the spec version it was written against.
   * Required for tools loaded by name (checked against the package's `"debug-gym"` manifest);
   * optional for plugin objects built in code (tests, inline tools).
   */
  readonly meta?: PluginMeta;
  /** The name the model calls, e.g. `pdb`. */
  readonly name: string;
  /** Other names the env also accepts for this tool (e.g. `edit` for `rewrite`); not shown to the model. */
  readonly aliases?: readonly string[];
  /** One paragraph for the function-calling schema. */
  readonly description: string;
  /**
   * False when the tool never changes the working copy (view, listdir, grep): the env then reuses what
   * it knows about the files, e.g. `info.dirTree`, instead of reading them again. Default true.
   */
  readonly changesFiles?: boolean;
  /** Longer usage notes with examples, merged into `info.instructions`. */
  readonly instructions?: string;
  /** JSON Schema of the arguments. Optional arguments accept an explicit `null`, meaning "use the default". */
  readonly parameters: JsonSchemaObject;
  /** A fresh tool for one env (tools keep per-episode state, e.g. a pdb session). */
  create(options?: Options): ToolInstance;
}

/** How the current call reached the tool. */
export interface ToolCallInfo {
  /** The name the caller used: the tool's name or one of its aliases (`edit` for `rewrite`). */
  name: string;
}

/** One tool in one env. Hooks receive env events; they never call other tools directly. */
export interface ToolInstance {
  /**
   * This instance's description, when its options change it (shown to the model instead of the plugin's).
   */
  readonly description?: string;
  /**
   * The argument schema shown to the model for this instance, when its options narrow the plugin's
   * (e.g. pdb with `setDefaultEntrypoint: false` requires `entrypoint`). Calls are still validated
   * against the plugin's `parameters`; the instance answers the rest itself in `run()`, with its own
   * message (as the original did).
   */
  readonly parameters?: JsonSchemaObject;
  /** Execute a validated call; return the observation text. Throw a WorkspaceError for a refused path. */
  run(args: Record<string, unknown>, context: ToolContext, call?: ToolCallInfo): Promise<string>;
  /**
   * After every reset (fresh working copy, terminal started), and when a hidden tool is shown again
   * mid-episode (`RepoEnv.setHiddenTools`). A returned string becomes an observation.
   */
  onReset?(context: ToolContext): Promise<string | void>;
  /** After a successful rewrite by another tool (or this one). */
  onRewrite?(event: RewriteEvent, context: ToolContext): Promise<string | void>;
  /** After every evaluation run. */
  onEval?(event: EvalEvent, context: ToolContext): Promise<string | void>;
  /** After every step, once the step's own events were handled. */
  onStep?(event: StepEvent, context: ToolContext): Promise<string | void>;
  /** Release resources (sessions). Called on env.close(), before a reset, and when the tool is hidden. */
  close?(): Promise<void>;
  /**
   * For `env.fork()`: this instance's episode state as plain data (e.g. pdb's entrypoint and the
   * lines its session was sent). Tools without state leave it out.
   */
  snapshot?(): unknown;
  /**
   * For `env.fork()`: bring this fresh instance (same plugin, same options) to `snapshot`'s state in
   * the forked env (its working copy, breakpoints and counters are already the original's). A
   * returned string is a note about what could not be reproduced.
   */
  restore?(snapshot: unknown, context: ToolContext): Promise<string | void>;
}

/** The function-calling schema the env hands to an LLM (`info.tools`). */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchemaObject };
}
