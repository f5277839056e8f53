/**
 * Shared skip-or-fail rule for sandbox test suites: a backend that cannot run here is skipped with
 * a loud warning, unless DEBUG_GYM_REQUIRE_SANDBOXES=1 (CI), where it must fail instead.
 */
import { describe, it } from 'vitest';
import { type SandboxKind, sandboxesRequired } from './sandbox-status.js';

/**
 * Call at the top level of a test file. Returns true when the suite can run. When it cannot:
 * with DEBUG_GYM_REQUIRE_SANDBOXES=1 registers a failing test saying why, else prints a warning;
 * either way returns false, so wrap the suite in `describe.runIf(requireOrSkip(...))`.
 */
export function requireOrSkip(kind: SandboxKind, available: boolean, reason = 'it is not available here'): boolean {
  if (available) return true;
  if (sandboxesRequired()) {
    describe(`${kind} sandbox`, () => {
      it('is available (DEBUG_GYM_REQUIRE_SANDBOXES=1)', () => {
        throw new Error(`The ${kind} sandbox is required (DEBUG_GYM_REQUIRE_SANDBOXES=1) but ${reason}.`);
      });
    });
  } else {
    console.warn(`\n!!! SKIPPING the ${kind} terminal tests: ${reason}. Set DEBUG_GYM_REQUIRE_SANDBOXES=1 to fail instead. !!!\n`);
  }
  return false;
}
