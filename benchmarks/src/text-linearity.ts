#!/usr/bin/env node
/**
 * `pnpm perf:text`: every text-processing function that sees agent-controlled text, fed adversarial
 * inputs of 1 and 8 MB (long runs of each special character, CSI/OSC/C1 introducers, digits, spaces,
 * newlines, the words the parsers key on), must take about 8 times longer on 8 MB than on 1 MB —
 * linear. Asserted as a RATIO, never a wall-clock limit: load slows both sizes alike, and each time is
 * the CPU time of the best of several trials. A quadratic function would show a ratio near 64; first
 * two 8× steps from 8 K characters (8 K, 64 K, 512 K; the smaller step counts, since a linear function
 * can jump once where V8's memory changes tier) catch it before the megabyte inputs, which would then
 * take minutes, are tried.
 */
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { ADVERSARIAL_UNITS, adversarialText, growth } from '@debug-gym/test-utils/linearity';
import { TEXT_CASES } from './text-linearity-cases.js';

interface Row {
  case: string;
  input: string;
  guardRatio: number;
  ms1: number | null;
  ms8: number | null;
  ratio: number | null;
  ok: boolean;
}

const program = new Command('debug-gym-perf-text')
  .description('Linear-time check of every text-processing function on adversarial inputs (ratios, no wall clock).')
  .addOption(new Option('--small <bytes>', 'the smaller measured size').default(String(1024 * 1024)))
  .addOption(new Option('--factor <n>', 'the larger size is this many times the smaller').default('8'))
  .addOption(new Option('--max-ratio <r>', 'largest accepted time ratio (linear: about the factor; quadratic: its square)').default('24'))
  .addOption(new Option('--trials <n>', 'trials per size (the best counts)').default('3'))
  .addOption(new Option('--case <text>', 'only cases whose name contains this'))
  .addOption(new Option('--input <text>', 'only inputs whose name contains this'))
  .option('--quick', 'only the 8 K / 64 K / 512 K steps, no megabyte inputs: still ratios, minutes less')
  .option('--json <file>', 'also write the rows as JSON');
program.parse();
const options = program.opts<{ small: string; factor: string; maxRatio: string; trials: string; case?: string; input?: string; quick?: boolean; json?: string }>();

const factor = Number(options.factor);
const small = Number(options.small);
const maxRatio = Number(options.maxRatio);
const trials = Number(options.trials);
const guardSmall = 8 * 1024;
// The small steps are allowed more: below a megabyte V8's heap is still growing its young generation, and a
// function that allocates an object per line (parseLines) shows up to ~30× there while it is ~8× at scale.
// A quadratic function still gives 64×.
const guardRatio = Math.max(maxRatio, 4 * factor);
const cases = TEXT_CASES.filter((entry) => !options.case || entry.name.includes(options.case));
const units = ADVERSARIAL_UNITS.filter((entry) => !options.input || entry.name.includes(options.input));

const rows: Row[] = [];
const started = performance.now();
for (const { name: input, unit } of units) {
  const make = (length: number): string => adversarialText(unit, length);
  for (const entry of cases) {
    // The small step first: a quadratic function shows itself here in seconds, not at 8 MB in hours.
    const guard = await growth(entry.run, make, guardSmall, factor, { minMs: 10, trials, steps: 2 });
    if (guard.ratio >= guardRatio || options.quick) {
      const ok = guard.ratio < guardRatio;
      rows.push({ case: entry.name, input, guardRatio: guard.ratio, ms1: guard.ms[1] as number, ms8: guard.ms[2] as number, ratio: guard.ratio, ok });
      if (!ok) process.stderr.write(`NOT LINEAR  ${entry.name} on ${input}: ${guard.ratios.map((ratio) => `${ratio.toFixed(1)}×`).join(', ')} over 8× steps from ${guardSmall} characters\n`);
      continue;
    }
    const measured = await growth(entry.run, make, small, factor, { minMs: 0, trials });
    const ok = measured.ratio < maxRatio;
    rows.push({ case: entry.name, input, guardRatio: guard.ratio, ms1: measured.ms[0] as number, ms8: measured.ms[1] as number, ratio: measured.ratio, ok });
    if (!ok) process.stderr.write(`NOT LINEAR  ${entry.name} on ${input}: ${measured.ratio.toFixed(1)}× from ${small} to ${small * factor} characters\n`);
  }
  process.stderr.write(`  ${input}: ${cases.length} functions (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
}

// Per function: the worst input, its times and ratio.
const [fromSize, toSize] = options.quick ? [guardSmall * factor, guardSmall * factor * factor] : [small, small * factor];
const lines = [`${'function'.padEnd(42)} ${'worst input'.padEnd(30)} ${`${fromSize / 1024} K`.padStart(10)} ${`${toSize / 1024} K`.padStart(10)} ${'ratio'.padStart(7)}`];
for (const entry of cases) {
  const mine = rows.filter((row) => row.case === entry.name);
  const worst = mine.reduce((a, b) => ((b.ratio ?? Infinity) > (a.ratio ?? Infinity) ? b : a));
  const ms = (value: number | null): string => (value === null ? '-' : `${value.toFixed(2)} ms`);
  lines.push(
    `${entry.name.padEnd(42)} ${worst.input.slice(0, 30).padEnd(30)} ${ms(worst.ms1).padStart(10)} ${ms(worst.ms8).padStart(10)} ${(worst.ratio === null ? `>${maxRatio}` : `${worst.ratio.toFixed(1)}×`).padStart(7)}`,
  );
}
const failed = rows.filter((row) => !row.ok);
console.log(`\nText linearity: ${cases.length} functions × ${units.length} adversarial inputs, ${fromSize} → ${toSize} characters (linear ≈ ${factor}×, quadratic ≈ ${factor * factor}×; accepted < ${maxRatio}×)\n`);
console.log(lines.join('\n'));
console.log(`\n${rows.length - failed.length} of ${rows.length} linear${failed.length > 0 ? `; NOT linear: ${failed.map((row) => `${row.case} on ${row.input}`).join(', ')}` : ''}`);
if (options.json) writeFileSync(options.json, `${JSON.stringify({ small, factor, maxRatio, rows }, null, 2)}\n`);
process.exit(failed.length > 0 ? 1 : 0);
