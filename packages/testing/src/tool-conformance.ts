import { DebugGymError, assertToolPlugin, validateArguments, type JsonSchemaObject, type ToolPluginV1 } from '@debug-gym/core';
import { createToolContext, type RepositoryFiles, type TestContextOptions, type TestToolContext } from './create-tool-context.js';
import { badArguments, minimalArguments, probeArguments } from './generated-arguments.js';
import { INVALID_ARGUMENTS_CODE, runTool } from './run-tool.js';

/** Code of the error `assertToolConformance` throws. */
export const NOT_CONFORMANT_CODE = 'DG_TESTING_TOOL_NOT_CONFORMANT';

const IDENTIFIER = /^[a-zA-Z_][\w-]*$/;
const ERROR_CODE = /^[A-Z][A-Z0-9_]*$/;
const DEFAULT_FILES: RepositoryFiles = {
  'README.md': '# A small repository\n',
  'src/app.py': 'def total(items):\n    return sum(items)\n',
  'tests/test_app.py': 'from src.app import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
};

export interface ConformanceOptions<Options = Record<string, unknown>> extends Omit<TestContextOptions, 'terminal'> {
  /** Passed to `plugin.create(options)`. */
  options?: Options;
  /** Calls that must succeed (return a string). Default: one call with every required argument set to a plain value. */
  validCalls?: readonly Record<string, unknown>[];
  /**
   * Also call the tool with valid but awkward arguments (empty, missing and outside paths, 0, -1, huge
   * numbers): each must return a message or throw a DebugGymError, never a raw error. Default true.
   */
  probes?: boolean;
}

/** One named check and what it found (empty: passed). */
export interface ConformanceCheck {
  name: string;
  problems: string[];
}

export interface ConformanceReport {
  ok: boolean;
  checks: ConformanceCheck[];
  /** Every problem, prefixed with its check's name. */
  problems: string[];
}

function schemaProblems(plugin: ToolPluginV1<unknown>): string[] {
  const schema: JsonSchemaObject = plugin.parameters;
  const problems: string[] = [];
  try {
    validateArguments(plugin.name, schema, {});
  } catch (error) {
    return [`parameters is not a valid JSON Schema: ${(error as Error).message}`];
  }
  if (schema.additionalProperties === true) problems.push('additionalProperties is true: misspelled arguments would reach run() unnoticed.');
  const required = new Set(schema.required ?? []);
  for (const name of required) if (!(name in schema.properties)) problems.push(`required argument \`${name}\` is not in properties.`);
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!property?.type) problems.push(`argument \`${name}\` has no type.`);
    if (typeof property?.description !== 'string' || property.description.trim() === '') problems.push(`argument \`${name}\` has no description (the model reads it).`);
    const types = [property?.type ?? []].flat();
    if (!required.has(name) && property?.type && !types.includes('null')) {
      problems.push(`optional argument \`${name}\` should accept null (type ['${types.join("', '")}', 'null']): models send null for "use the default".`);
    }
  }
  return problems;
}

function aliasProblems(plugin: ToolPluginV1<unknown>): string[] {
  const aliases = plugin.aliases ?? [];
  const problems = aliases.filter((alias) => typeof alias !== 'string' || !IDENTIFIER.test(alias)).map((alias) => `alias ${JSON.stringify(alias)} is not an identifier.`);
  if (aliases.includes(plugin.name)) problems.push('an alias repeats the name.');
  if (new Set(aliases).size !== aliases.length) problems.push('aliases repeat.');
  return problems;
}

async function instanceProblems<Options>(plugin: ToolPluginV1<Options>, options: Options | undefined): Promise<string[]> {
  try {
    const instance = plugin.create(options);
    if (typeof instance?.run !== 'function') return ['create() must return an object with a run() method.'];
    await instance.close?.();
    await instance.close?.();
    return [];
  } catch (error) {
    return [`create() or a repeated close() threw: ${describe(error)}`];
  }
}

async function badArgumentProblems<Options>(plugin: ToolPluginV1<Options>, valid: Record<string, unknown>, options: Options | undefined): Promise<string[]> {
  const problems: string[] = [];
  for (const call of badArguments(plugin.parameters, valid)) {
    const error = await runTool(plugin, call.args, { ...(options === undefined ? {} : { options }), files: {} }).then(
      () => null,
      (caught: unknown) => caught,
    );
    if (!DebugGymError.hasCode(error, INVALID_ARGUMENTS_CODE)) {
      problems.push(`a call ${call.label} (${JSON.stringify(call.args)}) was not refused by the schema${error ? `: ${describe(error)}` : ''}.`);
    }
  }
  return problems;
}

async function callProblems<Options>(plugin: ToolPluginV1<Options>, calls: Array<{ args: Record<string, unknown>; mustSucceed: boolean }>, context: TestToolContext, options: Options | undefined): Promise<string[]> {
  const problems: string[] = [];
  for (const { args, mustSucceed } of calls) {
    try {
      const { output } = await runTool(plugin, args, { context, ...(options === undefined ? {} : { options }) });
      if (typeof output !== 'string') problems.push(`run(${JSON.stringify(args)}) returned ${typeof output}, not a string.`);
    } catch (error) {
      if (DebugGymError.isInstance(error) && ERROR_CODE.test(error.code)) {
        if (mustSucceed) problems.push(`the valid call ${JSON.stringify(args)} failed: ${describe(error)}`);
        continue;
      }
      problems.push(`run(${JSON.stringify(args)}) threw a raw ${describe(error)}: return a message for the model or throw a DebugGymError (e.g. a WorkspaceError).`);
    }
  }
  return problems;
}

function describe(error: unknown): string {
  if (DebugGymError.isInstance(error)) return `${error.name} [${error.code}]: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Check a tool plugin against what the env and the model rely on: the manifest (name, description,
 * parameters, create), a valid JSON Schema whose arguments are typed, described and null-tolerant when
 * optional, aliases, bad arguments refused before `run()` with a `DG_TOOL_INVALID_ARGUMENTS` error, and
 * no raw error out of `run()` for valid or awkward calls in a real local context over `files`.
 */
export async function checkToolConformance<Options>(plugin: ToolPluginV1<Options>, conformance: ConformanceOptions<Options> = {}): Promise<ConformanceReport> {
  const { options, validCalls, probes = true, ...contextOptions } = conformance;
  const checks: ConformanceCheck[] = [];
  try {
    assertToolPlugin(plugin, (plugin as { name?: string } | null)?.name ?? '<unnamed>');
    checks.push({ name: 'manifest', problems: [] });
  } catch (error) {
    checks.push({ name: 'manifest', problems: [(error as Error).message] });
    return report(checks);
  }
  checks.push({ name: 'parameters', problems: schemaProblems(plugin as ToolPluginV1<unknown>) });
  checks.push({ name: 'aliases', problems: aliasProblems(plugin as ToolPluginV1<unknown>) });
  checks.push({ name: 'instance', problems: await instanceProblems(plugin, options) });
  if (checks.some((check) => check.problems.length > 0)) return report(checks);

  const valid = validCalls?.[0] ?? minimalArguments(plugin.parameters);
  checks.push({ name: 'bad arguments', problems: await badArgumentProblems(plugin, valid, options) });
  const calls = [
    ...(validCalls ?? []).map((args) => ({ args, mustSucceed: true })),
    ...(validCalls ? [] : [{ args: valid, mustSucceed: false }]),
    ...(probes ? probeArguments(plugin.parameters, valid).map((args) => ({ args, mustSucceed: false })) : []),
  ];
  const context = await createToolContext({ files: DEFAULT_FILES, ...contextOptions });
  try {
    checks.push({ name: 'calls', problems: await callProblems(plugin, calls, context, options) });
  } finally {
    await context.close();
  }
  return report(checks);
}

function report(checks: ConformanceCheck[]): ConformanceReport {
  const problems = checks.flatMap((check) => check.problems.map((problem) => `${check.name}: ${problem}`));
  return { ok: problems.length === 0, checks, problems };
}

/** `checkToolConformance`, throwing a DebugGymError (`DG_TESTING_TOOL_NOT_CONFORMANT`) that lists every problem. */
export async function assertToolConformance<Options>(plugin: ToolPluginV1<Options>, conformance: ConformanceOptions<Options> = {}): Promise<void> {
  const result = await checkToolConformance(plugin, conformance);
  if (!result.ok) {
    const name = (plugin as { name?: string } | null)?.name ?? '<unnamed>';
    throw new DebugGymError(NOT_CONFORMANT_CODE, `Tool plugin '${name}' does not conform:\n${result.problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}
