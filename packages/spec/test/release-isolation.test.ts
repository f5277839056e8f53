import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../scripts/check-release-isolation.mjs', import.meta.url));

describe('release isolation', () => {
  it('a @debug-gym/core minor releases no plugin, and a @debug-gym/spec minor releases them all', () => {
    const output = execFileSync(process.execPath, [script], { encoding: 'utf8' });
    expect(output).toContain('release isolation: ok');
    expect(output).not.toMatch(/core minor releases:.*@debug-gym\/tool-/);
    // changeset status in a temporary copy of the workspace: 25-34 s at load 19 here, past the suite's 30 s.
  }, 300_000);
});
