import { createHash } from 'node:crypto';
import type { CandidateResult } from './validate-candidate.js';

/** SWE-smith's pytest command (TEST_PYTEST), which the SWE-smith plugin runs with the FAIL_TO_PASS files appended. */
export const TEST_CMD = 'pytest --disable-warnings --color=no --tb=no --verbose';

/** One row of the dataset: SWE-smith's instance fields, the local-repository fields, and `synth`. */
export interface SynthInstance {
  instance_id: string;
  repo: string;
  patch: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  created_at: string;
  base_commit: string;
  problem_statement: string;
  repo_path: string;
  test_cmd: string;
  log_parser: 'pytest';
  /** Extra field: how the bug was made and what it is like (see the synth README). */
  synth: {
    generator: string;
    operator: string;
    description: string;
    file: string;
    line: number;
    function: string | null;
    seed: number;
    features: NonNullable<CandidateResult['features']>;
  };
}

export function instanceRow(result: CandidateResult, repo: { name: string; commit: string; path: string }, seed: number, createdAt: string): SynthInstance {
  const { candidate } = result;
  const patch = result.patch as string;
  const hash = createHash('sha256').update(patch).digest('hex').slice(0, 8);
  const failing = result.failToPass as string[];
  const shown = failing.slice(0, 5).join(', ') + (failing.length > 5 ? ` and ${failing.length - 5} more` : '');
  return {
    instance_id: `${repo.name}.${repo.commit.slice(0, 8)}.synth_${candidate.generator}_${candidate.operator.replaceAll('-', '_')}__${hash}`,
    repo: `local/${repo.name}`,
    patch,
    FAIL_TO_PASS: failing,
    PASS_TO_PASS: result.passToPass as string[],
    created_at: createdAt,
    base_commit: repo.commit,
    problem_statement: `Some tests of this repository fail: ${shown}. Find the bug in the code and fix it so that they pass; do not change the tests.`,
    repo_path: repo.path,
    test_cmd: TEST_CMD,
    log_parser: 'pytest',
    synth: {
      generator: candidate.generator,
      operator: candidate.operator,
      description: candidate.description,
      file: candidate.file,
      line: candidate.line,
      function: candidate.function?.name ?? null,
      seed,
      features: result.features as NonNullable<CandidateResult['features']>,
    },
  };
}

/** Per generator/operator: what was tried and what came of it. */
export interface OperatorCounts {
  tried: number;
  valid: number;
  kept: number;
  needsDebugger: number;
  noTestFails: number;
  uncovered: number;
  flaky: number;
  timeout: number;
  duplicate: number;
  /** Valid, but dropped by the dataset's health check. */
  unhealthy: number;
}

export const emptyCounts = (): OperatorCounts => ({ tried: 0, valid: 0, kept: 0, needsDebugger: 0, noTestFails: 0, uncovered: 0, flaky: 0, timeout: 0, duplicate: 0, unhealthy: 0 });

/** The README table of a dataset (Markdown). */
export function readmeTable(counts: Map<string, OperatorCounts>): string {
  const header = '| generator | tried | no test fails | uncovered | flaky | timeout | duplicate | valid | unhealthy | kept | needs a debugger |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |';
  const total = emptyCounts();
  const rows = [...counts.keys()].sort().map((name) => {
    const row = counts.get(name) as OperatorCounts;
    for (const key of Object.keys(total) as (keyof OperatorCounts)[]) total[key] += row[key];
    return line(name, row);
  });
  return [header, ...rows, line('**total**', total)].join('\n');
}

function line(name: string, row: OperatorCounts): string {
  const share = row.kept ? ` (${Math.round((100 * row.needsDebugger) / row.kept)} %)` : '';
  return `| ${name} | ${row.tried} | ${row.noTestFails} | ${row.uncovered} | ${row.flaky} | ${row.timeout} | ${row.duplicate} | ${row.valid} | ${row.unhealthy} | ${row.kept} | ${row.needsDebugger}${share} |`;
}
