/**
 * A small schema check of the JSON a run writes, so a smoke run (CI) fails when the output is not
 * what `--compare` and other tools expect.
 */
import { REPORT_FORMAT } from './report-types.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

export function validateReport(report: unknown): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, message: string): void => {
    if (!ok) problems.push(message);
  };
  if (!isObject(report)) return ['the report is not a JSON object'];
  need(report.format === REPORT_FORMAT, `format must be '${REPORT_FORMAT}'`);
  need(typeof report.createdAt === 'string' && !Number.isNaN(Date.parse(report.createdAt)), 'createdAt must be an ISO date');
  need(isNumber(report.durationMs), 'durationMs must be a number');
  const machine = report.machine;
  if (!isObject(machine)) problems.push('machine is missing');
  else {
    for (const key of ['cpuModel', 'os', 'kernel', 'node', 'python']) need(typeof machine[key] === 'string', `machine.${key} must be a string`);
    need(isNumber(machine.cores) && machine.cores > 0, 'machine.cores must be a positive number');
    for (const key of ['loadStart', 'loadEnd']) {
      need(Array.isArray(machine[key]) && (machine[key] as unknown[]).length === 3 && (machine[key] as unknown[]).every(isNumber), `machine.${key} must be three numbers`);
    }
  }
  if (!Array.isArray(report.backends) || report.backends.length === 0) return [...problems, 'backends must be a non-empty array'];
  report.backends.forEach((backend: unknown, index) => {
    const where = `backends[${index}]`;
    if (!isObject(backend)) return problems.push(`${where} is not an object`);
    need(typeof backend.terminal === 'string', `${where}.terminal must be a string`);
    need(['ok', 'skipped', 'failed'].includes(backend.status as string), `${where}.status must be ok, skipped or failed`);
    if (!Array.isArray(backend.rows) || !Array.isArray(backend.throughput)) return problems.push(`${where}.rows and .throughput must be arrays`);
    if (backend.status !== 'ok') return;
    need(backend.rows.length > 0, `${where}.rows is empty`);
    const ids = new Set<string>();
    backend.rows.forEach((row: unknown, rowIndex) => {
      const at = `${where}.rows[${rowIndex}]`;
      if (!isObject(row)) return problems.push(`${at} is not an object`);
      need(typeof row.id === 'string' && !ids.has(row.id), `${at}.id must be a unique string`);
      ids.add(row.id as string);
      need(isNumber(row.n) && row.n >= 1, `${at}.n must be at least 1`);
      for (const key of ['median', 'p95', 'p99', 'min', 'max', 'mean']) need(isNumber(row[key]) && (row[key] as number) >= 0, `${at}.${key} must be a number ≥ 0`);
      need(isNumber(row.min) && isNumber(row.median) && isNumber(row.p99) && row.min <= row.median && row.median <= row.p99, `${at}: min ≤ median ≤ p99 must hold`);
      need(row.cpuNodeMs === null || isNumber(row.cpuNodeMs), `${at}.cpuNodeMs must be a number or null`);
      need(row.cpuSandboxMs === null || isNumber(row.cpuSandboxMs), `${at}.cpuSandboxMs must be a number or null`);
      return undefined;
    });
    backend.throughput.forEach((run: unknown, runIndex) => {
      const at = `${where}.throughput[${runIndex}]`;
      if (!isObject(run)) return problems.push(`${at} is not an object`);
      for (const key of ['parallel', 'steps', 'wallMs', 'episodesPerMinute', 'stepsPerSecond', 'nodePeakRssMb']) need(isNumber(run[key]), `${at}.${key} must be a number`);
      need(run.sandboxPeakRssMb === null || isNumber(run.sandboxPeakRssMb), `${at}.sandboxPeakRssMb must be a number or null`);
      // Absent in reports written before the column existed.
      need(run.machineCpuMs === undefined || run.machineCpuMs === null || isNumber(run.machineCpuMs), `${at}.machineCpuMs must be a number or null`);
      return undefined;
    });
    return undefined;
  });
  return problems;
}
