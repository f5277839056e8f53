import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync, readdirSync } from 'node:fs';
import { type BenchmarkTask, type TaskSecret, type ToolCall } from '@debug-gym/spec';
import { addedLines, distinctiveLine, patchToRewriteCalls } from '@debug-gym/plugin-kit';

/** The project's own fixes (`<task>.patch`, unified diffs relative to the task folder), shipped with the package. */
export const bundledSolutionsDir: string = fileURLToPath(new URL('../solutions/', import.meta.url));

/** The fix of a task as `rewrite` calls, from `<solutionsDir>/<task>.patch` (null when there is none). */
export async function miniNightmareSolution(task: BenchmarkTask, solutionsDir: string = bundledSolutionsDir): Promise<ToolCall[] | null> {
  const file = join(solutionsDir, `${task.id}.patch`);
  if (!existsSync(file)) return null;
  return patchToRewriteCalls(await readFile(file, 'utf8'));
}

/**
 * What a task keeps from the agent: its known fix, which never enters the sandbox (bash and pdb cannot
 * read it on bubblewrap and Docker), and the `.debugignore` rules the tools hide.
 */
export async function miniNightmareSecrets(task: BenchmarkTask, solutionsDir: string = bundledSolutionsDir): Promise<TaskSecret[]> {
  const texts = new Map<string, string>();
  for (const entry of readdirSync(task.path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) texts.set(join(entry.parentPath, entry.name).slice(task.path.length + 1), readFileSync(join(entry.parentPath, entry.name), 'utf8'));
  }
  const others = (skip?: string): string[] => [...texts].filter(([path]) => path !== skip).map(([, text]) => text);
  const secrets: TaskSecret[] = [];
  const file = join(solutionsDir, `${task.id}.patch`);
  if (existsSync(file)) {
    const marker = distinctiveLine(addedLines(await readFile(file, 'utf8')), others());
    if (marker) secrets.push({ label: `known fix ${task.id}.patch`, marker, hostPath: file, promise: 'sandbox' });
  }
  const ignore = texts.get('.debugignore');
  const marker = ignore === undefined ? null : distinctiveLine(ignore, others('.debugignore'));
  if (marker) secrets.push({ label: 'hidden file .debugignore', marker, workspacePath: '.debugignore', promise: 'tools' });
  return secrets;
}
