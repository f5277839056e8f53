import type { SynthCandidate } from '@debug-gym/spec';
import type { TestResult } from './test-runner.js';

/** What a task is like, to choose a curriculum (the `synth.features` field of an instance). */
export interface TaskFeatures {
  failing_tests: number;
  failing_test_names: string[];
  /** `wrong-value`: every failing test fails an assertion; `exception`: none does; else `mixed`. */
  failure_kind: 'wrong-value' | 'exception' | 'mixed';
  exceptions: string[];
  /** The mutated line is in some failing test's traceback. */
  in_traceback: boolean;
  /** Not in any traceback: reading the failure output does not point at the bug. */
  needs_debugger: boolean;
  /** Frames from the mutated line to where the failure was raised (smallest over the failing tests); null when not in a traceback. */
  frame_distance: number | null;
  /** Files between the mutated line and the failing assertion: distinct files on that stretch of the traceback minus one, else 1 when the assertion is in another file, 0 in the same. */
  file_distance: number;
  patch_lines_added: number;
  patch_lines_removed: number;
}

/** The lines of the mutated file that hold the change (a deletion: the lines around it). */
export function mutatedLines(candidate: SynthCandidate): [number, number] {
  const count = candidate.replacement === '' ? 0 : candidate.replacement.split('\n').length - (candidate.replacement.endsWith('\n') ? 1 : 0);
  return count === 0 ? [candidate.line - 1, candidate.line] : [candidate.line, candidate.line + count - 1];
}

export function taskFeatures(candidate: SynthCandidate, failing: Record<string, TestResult>, patch: { added: number; removed: number }): TaskFeatures {
  const [first, last] = mutatedLines(candidate);
  const names = Object.keys(failing).sort();
  let inTraceback = false;
  let frameDistance: number | null = null;
  let fileDistance = Number.POSITIVE_INFINITY;
  for (const result of Object.values(failing)) {
    const frames = result.frames ?? [];
    const raised = frames.at(-1);
    let index = -1;
    frames.forEach(([file, line], at) => {
      if (file === candidate.file && line >= first && line <= last) index = at;
    });
    if (index >= 0) {
      inTraceback = true;
      const distance = frames.length - 1 - index;
      frameDistance = frameDistance === null ? distance : Math.min(frameDistance, distance);
      fileDistance = Math.min(fileDistance, new Set(frames.slice(index).map(([file]) => file)).size - 1);
    } else if (!inTraceback) {
      fileDistance = Math.min(fileDistance, raised && raised[0] === candidate.file ? 0 : 1);
    }
  }
  const exceptions = [...new Set(Object.values(failing).map((result) => result.exception ?? 'unknown'))].sort();
  const asserts = Object.values(failing).filter((result) => result.exception === 'AssertionError').length;
  return {
    failing_tests: names.length,
    failing_test_names: names,
    failure_kind: asserts === names.length ? 'wrong-value' : asserts === 0 ? 'exception' : 'mixed',
    exceptions,
    in_traceback: inTraceback,
    needs_debugger: !inTraceback,
    frame_distance: frameDistance,
    file_distance: Number.isFinite(fileDistance) ? fileDistance : 1,
    patch_lines_added: patch.added,
    patch_lines_removed: patch.removed,
  };
}

/** Tests failing the same way: the same tests, each with the same exception raised at the same place. */
export function failureSignature(failing: Record<string, TestResult>): string {
  return Object.keys(failing)
    .sort()
    .map((test) => {
      const result = failing[test] as TestResult;
      const raised = result.frames?.at(-1);
      return `${test}|${result.outcome}|${result.exception ?? ''}|${raised ? `${raised[0]}:${raised[1]}` : ''}`;
    })
    .join('\n');
}
