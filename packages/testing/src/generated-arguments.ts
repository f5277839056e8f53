import type { JsonSchemaObject, JsonSchemaProperty } from '@debug-gym/core';

type Args = Record<string, unknown>;

function typesOf(property: JsonSchemaProperty | undefined): string[] {
  return [property?.type ?? []].flat().filter((type) => typeof type === 'string');
}

function sampleValue(types: string[]): unknown {
  if (types.includes('string')) return 'src/app.py';
  if (types.includes('integer') || types.includes('number')) return 1;
  if (types.includes('boolean')) return true;
  if (types.includes('array')) return [];
  if (types.includes('object')) return {};
  return null;
}

/** The smallest call the schema accepts: every required argument with a plain value of its type. */
export function minimalArguments(schema: JsonSchemaObject): Args {
  const args: Args = {};
  for (const name of schema.required ?? []) args[name] = sampleValue(typesOf(schema.properties[name]));
  return args;
}

/** A value of none of `types` (JSON Schema type names), or undefined when every type is allowed. */
function wrongValue(types: string[]): unknown {
  const candidates: Array<[string[], unknown]> = [
    [['string'], 'not-a-valid-value'],
    [['integer', 'number'], 12_345],
    [['boolean'], true],
    [['array'], [1, 2]],
    [['object'], { nested: 1 }],
  ];
  return candidates.find(([kinds]) => !kinds.some((kind) => types.includes(kind)))?.[1];
}

/** Calls the env must refuse before `run()`: a missing required argument, an unknown one, a wrong type. */
export function badArguments(schema: JsonSchemaObject, valid: Args): Array<{ label: string; args: unknown }> {
  const calls: Array<{ label: string; args: unknown }> = [];
  for (const name of schema.required ?? []) {
    const { [name]: _left, ...rest } = valid;
    calls.push({ label: `without the required \`${name}\``, args: rest });
  }
  if (schema.additionalProperties !== true) calls.push({ label: 'with an unknown argument', args: { ...valid, not_a_parameter_of_this_tool: 1 } });
  for (const [name, property] of Object.entries(schema.properties)) {
    const types = typesOf(property);
    if (types.length === 0) continue;
    const value = wrongValue(types);
    if (value !== undefined) calls.push({ label: `with \`${name}\` of the wrong type`, args: { ...valid, [name]: value } });
  }
  calls.push({ label: 'with a list instead of named arguments', args: [1, 2] });
  return calls;
}

const STRING_PROBES = ['', 'does-not-exist.py', '../outside-the-repository.txt', '/etc/passwd'];
const NUMBER_PROBES = [0, -1, 1_000_000_000];

/** Valid but awkward calls (empty and missing paths, paths outside the repository, extreme numbers). */
export function probeArguments(schema: JsonSchemaObject, valid: Args): Args[] {
  const calls: Args[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const types = typesOf(property);
    if (property?.enum) continue;
    if (types.includes('string')) for (const value of STRING_PROBES) calls.push({ ...valid, [name]: value });
    if (types.includes('integer') || types.includes('number')) for (const value of NUMBER_PROBES) calls.push({ ...valid, [name]: value });
  }
  return calls;
}
