import { DebugGymError, WorkspaceError, defineToolPlugin, type JsonSchemaObject, type ToolContext, type ToolInstance, type ToolPluginV1 } from '@debug-gym/spec';
import { GlobError, collectFiles, type Collected } from './collect-files.js';
import { formatMatches, noMatchesText, type FileMatches } from './format-grep.js';
import { compileGrepPattern, patternErrorMessage } from './grep-pattern.js';
import { MatchTimeoutError, PatternSyntaxError, checkPattern } from './line-matcher.js';
import { searchFiles, type SearchOutcome } from './search-files.js';
import { meta } from './meta.js';

export interface GrepToolOptions {
  /** Matching lines shown when the call gives no `max_results`. Default 100. */
  defaultMaxResults?: number;
  /** Time budget for one search, in seconds (the original's grep timeout). Default 30. */
  timeout?: number;
  /** Files larger than this are skipped and named in the answer. Default 4 MiB. */
  maxFileBytes?: number;
  /** Bytes one search reads at most. Default 128 MiB. */
  maxTotalBytes?: number;
  /** Files one search covers at most. Default 50 000. */
  maxFiles?: number;
  /** Folder levels below the searched directory that are entered. Default 64. */
  maxDepth?: number;
}

const DEFAULT_MAX_RESULTS = 100;
const MiB = 1024 * 1024;
const DEFAULTS = { maxFileBytes: 4 * MiB, maxTotalBytes: 128 * MiB, maxFiles: 50_000, maxDepth: 64 };

const DESCRIPTION =
  'Search for a pattern in files within the repository. Can search in specific files, directories, glob patterns, or the entire repository. ' +
  'The pattern is a regular expression (RE2 syntax, as ripgrep: POSIX extended regex such as `foo|bar`, `[0-9]+`, `[[:space:]]`, plus `\\d`, `\\w`, `\\b`, `(?i)`; no backreferences or lookaround); ' +
  'escape regex characters to match them literally. Binary files and the .git, __pycache__ and node_modules directories are skipped.';

const EXAMPLES = [
  'grep(pattern="function") to search for the word "function" in all files in the repository.',
  'grep(pattern="class .*Test", path="tests") to search for the regex "class .*Test" in all files under the \'tests/\' directory.',
  'grep(pattern="def parse", path="*.py") to search every Python file (a glob without "/" matches file names at any depth).',
  'grep(pattern="import numpy", path="src/main.py") to search for "import numpy" in the specific file \'src/main.py\'.',
  'grep(pattern="TODO|FIXME", path="src/**/*.py") to search the Python files below \'src/\'.',
  'grep(pattern="bug", max_results=10) to search for "bug" and limit results to 10 matches.',
];

function grepError(message: string): string {
  return `Grep error: ${message}`;
}

/** The original's schema, shown to the model. */
const SHOWN_PARAMETERS: JsonSchemaObject = {
  type: 'object',
  properties: {
    pattern: { type: 'string', description: 'The regular expression to search for, matched against each line.' },
    path: {
      type: ['string', 'null'],
      description:
        'Optional file, directory or glob pattern to search in, relative to the repository root (e.g. "src", "src/app.py", "*.py", "src/**/*.py"). If null, searches the entire repository.',
    },
    max_results: {
      type: ['number', 'null'],
      minimum: 1,
      description: 'Maximum number of matching lines to return. If null, returns up to 100 matches.',
    },
  },
  required: ['pattern'],
};

/** What a call may pass: the schema plus the keyword arguments the original's grep took without listing them. */
const ACCEPTED_PARAMETERS: JsonSchemaObject = {
  ...SHOWN_PARAMETERS,
  properties: {
    ...SHOWN_PARAMETERS.properties,
    regex: { type: ['boolean', 'null'], description: 'False matches the pattern as a literal string. Default true.' },
    case_sensitive: { type: ['boolean', 'null'], description: 'False ignores case. Default true.' },
    line_numbers: { type: ['boolean', 'null'], description: 'False leaves the line numbers out of the matches. Default true.' },
  },
};

/** Build one grep tool instance. */
export function createGrep(options: GrepToolOptions = {}): ToolInstance {
  const defaultMaxResults = options.defaultMaxResults ?? DEFAULT_MAX_RESULTS;
  const timeoutMs = (options.timeout ?? 30) * 1000;
  const limits = { ...DEFAULTS, ...definedOnly(options) };
  return {
    parameters: SHOWN_PARAMETERS,
    async run(args, context: ToolContext): Promise<string> {
      const pattern = typeof args.pattern === 'string' ? args.pattern : '';
      if (pattern === '') return 'Pattern cannot be empty.';
      const path = typeof args.path === 'string' && args.path.trim() !== '' ? args.path.trim() : undefined;
      const maxResults = typeof args.max_results === 'number' ? Math.floor(args.max_results) : defaultMaxResults;
      // The original's keyword arguments (accepted, though its schema did not list them): all default to true.
      const compiled = compileGrepPattern(pattern, { regex: args.regex !== false, caseSensitive: args.case_sensitive !== false });
      if (!compiled.ok) return grepError(compiled.message);
      const deadline = Date.now() + timeoutMs;
      // RE2 checks the pattern before any file is read (as grep does), in the matching worker: compiling
      // can itself take long, and nothing the agent writes runs on the event loop.
      try {
        await checkPattern(compiled.source, compiled.flags, timeoutMs);
      } catch (error) {
        if (error instanceof PatternSyntaxError) return grepError(patternErrorMessage(error.message));
        if (error instanceof MatchTimeoutError) return grepError(costlyPattern(timeoutMs));
        throw error;
      }
      let collected: Collected;
      try {
        collected = await collectFiles({ workspace: context.workspace, readDir: (dir) => context.terminal.readDir(dir) }, path, { maxDepth: limits.maxDepth, maxFiles: limits.maxFiles, deadline });
      } catch (error) {
        // grep's own words for a missing path, which is also how a hidden one is reported.
        if (DebugGymError.hasCode(error, 'DG_WORKSPACE_NOT_FOUND')) return grepError(`${path}: No such file or directory`);
        if (WorkspaceError.isInstance(error)) return grepError(error.message);
        if (error instanceof GlobError) return grepError(`${path}: ${error.message}`);
        throw error;
      }
      // Look for one match more than shown, so "search limit reached" is only said when it was.
      const outcome = await searchFiles(context.terminal, collected.targets, {
        source: compiled.source,
        flags: compiled.flags,
        limit: maxResults + 1,
        deadline,
        timeoutMs,
        maxFileBytes: limits.maxFileBytes,
        maxTotalBytes: limits.maxTotalBytes,
      });
      if (outcome.matchTimedOut) return grepError(costlyPattern(timeoutMs));
      const limitReached = outcome.count > maxResults;
      const files = limitReached ? dropLastMatch(outcome.files) : outcome.files;
      const note = searchNotes(collected, outcome, { ...limits, timeoutMs });
      if (files.length === 0) return noMatchesText(pattern, path) + note;
      return formatMatches(files, limitReached, args.line_numbers !== false) + note;
    },
  };
}

/** The observation for a pattern that used the whole time budget (RE2 is linear, but a huge counted repetition is costly per character). */
function costlyPattern(timeoutMs: number): string {
  return (
    `the search took longer than ${timeoutMs / 1000} seconds and was stopped; the pattern is too costly to match ` +
    '(large counted repetitions such as `(x{100}){10}`, or very long alternations). Simplify the pattern or narrow `path`.'
  );
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

function someOf(names: readonly string[], total: number): string {
  return `${names.slice(0, 5).join(', ')}${total > 5 ? `, and ${total - 5} more` : ''}`;
}

/** What the search left out, and why, so the model can narrow it (empty when nothing was). */
function searchNotes(collected: Collected, outcome: SearchOutcome, limits: typeof DEFAULTS & { timeoutMs: number }): string {
  const notes: string[] = [];
  if (outcome.tooLarge.length > 0) {
    notes.push(`Skipped ${outcome.tooLarge.length} file(s) larger than ${mib(limits.maxFileBytes)}: ${someOf(outcome.tooLarge, outcome.tooLarge.length)}.`);
  }
  if (collected.tooDeepCount > 0) {
    notes.push(`Folders deeper than ${limits.maxDepth} levels were not searched: ${someOf(collected.tooDeep, collected.tooDeepCount)}. Pass one of them as \`path\` to search below it.`);
  }
  if (collected.fileLimitHit) notes.push(`The search covered only the first ${limits.maxFiles} files; narrow \`path\`.`);
  if (outcome.byteBudgetHit) notes.push(`The search stopped after reading ${mib(outcome.bytesRead)} (the limit is ${mib(limits.maxTotalBytes)}); results may be incomplete. Narrow \`path\`.`);
  if (collected.outOfTime || outcome.outOfTime) {
    notes.push(`The search stopped after ${limits.timeoutMs / 1000} seconds before every file was searched; results may be incomplete. Narrow \`path\`.`);
  }
  return notes.map((note) => `\n\n(${note})`).join('');
}

function dropLastMatch(files: readonly FileMatches[]): FileMatches[] {
  const copy = files.map((file) => ({ ...file, matches: [...file.matches] }));
  const last = copy[copy.length - 1];
  last?.matches.pop();
  return last && last.matches.length === 0 ? copy.slice(0, -1) : copy;
}

/** `grep {pattern, path?, max_results?}`: search the visible files of the working copy. */
export const grepTool: ToolPluginV1<GrepToolOptions> = defineToolPlugin<GrepToolOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  changesFiles: false,
  name: 'grep',
  description: DESCRIPTION,
  instructions: `${DESCRIPTION}\nExamples:\n${EXAMPLES.join('\n')}`,
  parameters: ACCEPTED_PARAMETERS,
  create: (options) => createGrep(options ?? {}),
});
