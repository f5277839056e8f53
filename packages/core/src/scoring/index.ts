export { MAX_REPORT_LINE_BYTES, parsePytestReport, parsePytestReportBytes } from './pytest-report.js';
export { pytestArguments } from './pytest-entrypoint.js';
export { runPytestScoring, type PytestScoringRun, type PytestScoringRunOptions } from './pytest-scoring-run.js';
export { readPristineInventory, addPristineFile, isProtectedPath, restorePristineFiles, testTreeOf, type PristineInventory } from './pristine-files.js';
export { PytestScoringGuard } from './pytest-scoring-guard.js';
