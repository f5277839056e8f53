import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchemaObject } from '@debug-gym/spec';

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
const compiled = new WeakMap<JsonSchemaObject, ValidateFunction>();

/** Tool arguments nested deeper than this (objects and arrays) are refused before anything walks them. */
export const MAX_ARGUMENT_DEPTH = 32;

/**
 * Whether `value` nests objects/arrays more than `maxDepth` levels. Iterative, so a hostile value
 * nested thousands of levels deep cannot overflow the stack here (as JSON.stringify would).
 */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Object.values(current)) if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/**
 * Validate tool-call arguments against the tool's schema. Before validation, an explicit `null` for
 * an optional argument is dropped (it means "use the default"), and a digit string for an integer
 * argument becomes a number (models often quote numbers). Everything else must match exactly.
 */
export function validateArguments(toolName: string, schema: JsonSchemaObject, raw: unknown): ArgumentCheck {
  let input = raw;
  if (typeof input === 'string') {
    if (input.trim() === '') input = {};
    else {
      try {
        input = JSON.parse(input);
      } catch (error) {
        return { ok: false, message: `Invalid arguments for tool \`${toolName}\`: they are not valid JSON (${(error as Error).message}). ${usage(toolName, schema)}` };
      }
    }
  }
  if (input === undefined || input === null) input = {};
  if (exceedsDepth(input, MAX_ARGUMENT_DEPTH)) {
    return { ok: false, message: `Invalid arguments for tool \`${toolName}\`: they are nested too deeply (more than ${MAX_ARGUMENT_DEPTH} levels). ${usage(toolName, schema)}` };
  }
  if (typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, message: `Invalid arguments for tool \`${toolName}\`: expected an object of named arguments. ${usage(toolName, schema)}` };
  }
  const required = new Set(schema.required ?? []);
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (value === null && !required.has(key) && key in schema.properties) continue;
    args[key] = coerce(schema, key, value);
  }
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile({ ...schema, additionalProperties: schema.additionalProperties ?? false });
    compiled.set(schema, validate);
  }
  if (validate(args)) return { ok: true, args };
  const problems = (validate.errors ?? []).map((error) => describe(error, schema));
  return { ok: false, message: `Invalid arguments for tool \`${toolName}\`: ${[...new Set(problems)].join('; ')}. ${usage(toolName, schema)}` };
}

function coerce(schema: JsonSchemaObject, key: string, value: unknown): unknown {
  const types = [schema.properties[key]?.type ?? []].flat();
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim()) && (types.includes('integer') || types.includes('number'))) {
    return Number(value.trim());
  }
  return value;
}

function describe(error: ErrorObject, schema: JsonSchemaObject): string {
  const name = error.instancePath.replace(/^\//, '');
  switch (error.keyword) {
    case 'required':
      return `missing required argument \`${(error.params as { missingProperty: string }).missingProperty}\``;
    case 'additionalProperties':
      return `unexpected argument \`${(error.params as { additionalProperty: string }).additionalProperty}\``;
    case 'type': {
      const expected = [schema.properties[name]?.type ?? (error.params as { type: string }).type].flat().filter((type) => type !== 'null');
      return `argument \`${name}\` must be ${expected.map(article).join(' or ')}`;
    }
    default:
      return `argument \`${name}\` ${error.message ?? 'is invalid'}`;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** A one-line signature, e.g. `view(path: string, start?: integer, end?: integer)`. */
export function usage(toolName: string, schema: JsonSchemaObject): string {
  const required = new Set(schema.required ?? []);
  const params = Object.entries(schema.properties).map(([key, property]) => {
    const type = [property.type].flat().filter((t) => t !== 'null').join('|');
    return `${key}${required.has(key) ? '' : '?'}: ${type}`;
  });
  return `Usage: ${toolName}(${params.join(', ')})`;
}
