import { closest, distance } from 'fastest-levenshtein';
import * as z from 'zod';

/** The closest of `candidates` to `key`, when it is close enough to be a likely typo. */
export function closestKey(key: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const lower = key.toLowerCase();
  const exactCase = candidates.find((candidate) => candidate.toLowerCase() === lower);
  if (exactCase) return exactCase;
  const best = closest(lower, candidates.map((candidate) => candidate.toLowerCase()));
  const index = candidates.findIndex((candidate) => candidate.toLowerCase() === best);
  const limit = Math.max(2, Math.floor(Math.max(key.length, best.length) / 3));
  const prefixHit = candidates.find((candidate) => candidate.startsWith(lower) || lower.startsWith(candidate));
  if (distance(lower, best) <= limit) return candidates[index];
  return prefixHit;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 10; depth += 1) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
      current = (current as z.ZodOptional<z.ZodType>).unwrap();
      continue;
    }
    break;
  }
  return current;
}

/** The keys an object schema accepts at `path` (empty when the path leads elsewhere). */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(schema);
  for (const segment of path) {
    if (current instanceof z.ZodObject && typeof segment === 'string') {
      const child = (current.shape as Record<string, z.ZodType>)[segment];
      if (!child) return [];
      current = unwrap(child);
    } else if (current instanceof z.ZodArray) {
      current = unwrap(current.element as z.ZodType);
    } else if (current instanceof z.ZodRecord) {
      // A mapping of names to settings (`mcp_servers: { <name>: {...} }`): any key, then the value's schema.
      current = unwrap(current.valueType as z.ZodType);
    } else if (current instanceof z.ZodUnion) {
      const object = (current.options as z.ZodType[]).map(unwrap).find((option) => option instanceof z.ZodObject);
      if (!object) return [];
      current = unwrap(((object as z.ZodObject).shape as Record<string, z.ZodType>)[segment as string] ?? z.never());
    } else {
      return [];
    }
  }
  if (current instanceof z.ZodUnion) current = (current.options as z.ZodType[]).map(unwrap).find((option) => option instanceof z.ZodObject) ?? current;
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

/** `a.b[2].c` from a path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`)).join('');
}

/**
 * Readable lines for zod issues: "Unknown key `base.max_step`; did you mean `base.max_steps`?" and
 * "`base.max_steps` must be a whole number (got 2.5)." `prefix` is prepended to every path.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], schema: z.ZodType, prefix: readonly PropertyKey[] = [], input?: unknown): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const suggestion = closestKey(key, known);
        const name = formatPath([...prefix, ...issue.path, key]);
        lines.push(
          suggestion
            ? `Unknown key \`${name}\`; did you mean \`${formatPath([...prefix, ...issue.path, suggestion])}\`?`
            : `Unknown key \`${name}\`. Valid keys${issue.path.length + prefix.length > 0 ? ` of \`${formatPath([...prefix, ...issue.path])}\`` : ''}: ${known.join(', ')}.`,
        );
      }
      continue;
    }
    const value = valueAt(input, issue.path);
    const got = value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
    const message = issue.message.replace(/^Invalid input: /, '');
    lines.push(`\`${formatPath([...prefix, ...issue.path])}\` ${message.startsWith('must') ? message : `is invalid: ${message}`}${got}.`);
  }
  return lines;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}
