import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';
import { parseAttackTestName } from './attack-name.js';

type Verdict = 'held' | 'NOT HELD' | 'skipped';

const TARGETS = ['local', 'bubblewrap', 'docker', 'server'];

/**
 * Prints every attack × backend as held / NOT HELD / skipped after the run and writes the same as
 * `adversarial-report.json`. On CI (`CI=true`) a skipped attack fails the run: nothing in this suite
 * may be skipped there.
 */
export class AttackMatrixReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const matrix = new Map<string, Map<string, Verdict>>();
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const parsed = parseAttackTestName(test.name);
        if (!parsed) continue;
        const state = test.result().state;
        const verdict: Verdict = state === 'passed' ? 'held' : state === 'failed' ? 'NOT HELD' : 'skipped';
        const row = matrix.get(parsed.name) ?? new Map<string, Verdict>();
        row.set(parsed.target, verdict);
        matrix.set(parsed.name, row);
      }
    }
    const used = TARGETS.filter((target) => [...matrix.values()].some((row) => row.has(target)));
    const width = Math.max(6, ...[...matrix.keys()].map((name) => name.length));
    const lines = [`${'attack'.padEnd(width)} | ${used.map((t) => t.padEnd(10)).join(' | ')}`];
    lines.push(`${'-'.repeat(width)}-|-${used.map(() => '-'.repeat(10)).join('-|-')}`);
    for (const [name, row] of [...matrix].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`${name.padEnd(width)} | ${used.map((t) => (row.get(t) ?? 'n/a').padEnd(10)).join(' | ')}`);
    }
    const verdicts = [...matrix.values()].flatMap((row) => [...row.values()]);
    const count = (v: Verdict) => verdicts.filter((x) => x === v).length;
    console.log(`\nAdversarial suite: attack × backend (n/a: the attack does not concern that backend)\n\n${lines.join('\n')}\n`);
    console.log(`held ${count('held')}, not held ${count('NOT HELD')}, skipped ${count('skipped')}\n`);
    writeFileSync(
      'adversarial-report.json',
      `${JSON.stringify({ attacks: Object.fromEntries([...matrix].map(([name, row]) => [name, Object.fromEntries(row)])) }, null, 2)}\n`,
    );
    if (process.env.CI === 'true' && count('skipped') > 0) {
      console.error('Adversarial suite: attacks were skipped on CI, where every attack must run.');
      process.exitCode = 1;
    }
  }
}
