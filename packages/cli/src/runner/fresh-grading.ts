import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isProtectedPath, readPristineInventory, type RepoEnv, type Terminal } from '@debug-gym/core';
import { rerunWhileTimedOut, resolvedBy } from './rerun-timed-out.js';

/** Not part of the agent's change: test artefacts and version control. */
const SKIPPED = new Set(['.git', '__pycache__', '.pytest_cache']);
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_FILES = 20_000;

/** The agent's final change to the repository, as whole files. */
export interface FinalChange {
  /** New or changed files (relative path → content). */
  files: Map<string, Uint8Array>;
  /** Files of the original the agent deleted. */
  deleted: string[];
  /** Paths not carried over: symlinks, files over 8 MiB. */
  skipped: string[];
}

/** The result recorded for a benchmark task: the grading in a fresh sandbox, next to the episode's own. */
export interface FreshGrading {
  score: number;
  maxScore: number | null;
  resolved: boolean;
  inEpisode: { score: number; maxScore: number | null; resolved: boolean };
  /** Every evaluation of the change hit its time limit (retries included): no verdict. */
  timedOut: boolean;
  /** Runs repeated because they timed out (the reset's and the grading's). */
  retries: number;
  /** The fresh grading and the episode's last evaluation disagree on resolved. */
  disagrees: boolean;
  /** Files carried into the fresh sandbox, and changes dropped because they touch protected files. */
  applied: string[];
  dropped: string[];
  /** What the fresh evaluation printed (its observation). */
  output: string;
}

/** Compare the episode's working copy with the pristine repository on the host. */
export async function finalChange(terminal: Terminal, hostDir: string): Promise<FinalChange> {
  const change: FinalChange = { files: new Map(), deleted: [], skipped: [] };
  const seen = new Set<string>();
  let count = 0;
  const walk = async (relative: string): Promise<void> => {
    const entries = await terminal.readDir(relative === '' ? '.' : relative).catch(() => []);
    for (const entry of entries) {
      if (SKIPPED.has(entry.name) || ++count > MAX_FILES) continue;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.type === 'directory') await walk(path);
      else if (entry.type !== 'file') change.skipped.push(path);
      else {
        seen.add(path);
        const content = await terminal.readFile(path, { maxBytes: MAX_FILE_BYTES }).catch(() => null);
        if (!content) change.skipped.push(path);
        else if (!sameAsHost(join(hostDir, path), content)) change.files.set(path, content);
      }
    }
  };
  await walk('');
  for (const path of hostFiles(hostDir)) if (!seen.has(path) && !change.skipped.includes(path)) change.deleted.push(path);
  return change;
}

function sameAsHost(path: string, content: Uint8Array): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size === content.byteLength && readFileSync(path).equals(Buffer.from(content));
  } catch {
    return false;
  }
}

function hostFiles(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = prefix + entry.name;
    if (entry.isDirectory()) files.push(...hostFiles(join(dir, entry.name), `${path}/`));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/**
 * Grade the final change as SWE-bench does: a fresh env on the pristine repository (its reset
 * collects the expected tests), the change applied without the protected files (tests, test
 * configuration, read-only files), one evaluation.
 */
export async function gradeInFreshSandbox(
  change: FinalChange,
  hostDir: string,
  fresh: RepoEnv,
  inEpisode: FreshGrading['inEpisode'],
  options: { timeoutRetries?: number } = {},
): Promise<FreshGrading> {
  const allowed = options.timeoutRetries ?? 1;
  let retries = 0;
  try {
    // The reset's run on the pristine repository tells which tests count: without it nothing scores.
    let start = await fresh.reset();
    while (start.evalTimedOut && retries < allowed) {
      retries += 1;
      start = await fresh.reset();
    }
    const pristine = readPristineInventory(hostDir, (relative) => fresh.workspace.isReadonly(relative));
    const applied: string[] = [];
    const dropped: string[] = [];
    for (const [path, content] of change.files) {
      if (isProtectedPath(pristine, path)) dropped.push(path);
      else {
        await fresh.terminal.writeFile(path, content);
        applied.push(path);
      }
    }
    for (const path of change.deleted) {
      if (isProtectedPath(pristine, path)) dropped.push(path);
      else {
        await fresh.terminal.remove(path);
        applied.push(path);
      }
    }
    const graded = await rerunWhileTimedOut(await fresh.evaluate(), () => fresh.evaluate(), allowed - retries);
    const result = graded.result;
    retries += graded.reruns;
    // The env's rule for `resolved`, on the fresh run; a run that timed out keeps the known maximum.
    const maxScore = result.maxScore ?? inEpisode.maxScore;
    const resolved = resolvedBy(result, maxScore);
    return {
      score: result.score,
      maxScore,
      resolved,
      timedOut: result.timedOut,
      retries,
      inEpisode,
      disagrees: resolved !== inEpisode.resolved,
      applied: applied.sort(),
      dropped: dropped.sort(),
      output: result.output,
    };
  } finally {
    await fresh.close().catch(() => undefined);
  }
}
