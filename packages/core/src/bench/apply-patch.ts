import type { Terminal } from '@debug-gym/spec';
import { parseUnifiedDiff } from '@debug-gym/plugin-kit';

export interface PatchApplyResult {
  applied: boolean;
  /** The command that applied it (null when none did). */
  method: string | null;
  /** What the attempts printed. */
  output: string;
  /** Paths (relative to the working copy) the patch touches. */
  files: string[];
}

/** The SWE-bench harness's order: strict git apply, git apply keeping rejects, then GNU patch with fuzz. */
export const PATCH_COMMANDS = ['git apply --verbose', 'git apply --verbose --reject', 'patch --batch --fuzz=5 -p1'] as const;

/** Apply a unified diff in the working copy (fed on stdin, so it never lands in the sandbox's files). */
export async function applyPatch(terminal: Terminal, patch: string, options: { timeoutMs?: number } = {}): Promise<PatchApplyResult> {
  const files = [...new Set(parseUnifiedDiff(patch).flatMap((file) => [file.newPath ?? file.oldPath ?? ''].filter(Boolean)))];
  const outputs: string[] = [];
  for (const command of PATCH_COMMANDS) {
    const run = await terminal.run(command, { input: patch, timeoutMs: options.timeoutMs ?? 60_000 });
    outputs.push(`$ ${command}\n${run.output}`);
    if (run.exitCode === 0) return { applied: true, method: command, output: outputs.join('\n'), files };
  }
  return { applied: false, method: null, output: outputs.join('\n'), files };
}
