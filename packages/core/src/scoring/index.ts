export { parsePytestReport, type PytestReport, type TestOutcome } from './pytest-report.js';
export { pytestArguments } from './pytest-entrypoint.js';
export { runPytestScoring, type PytestScoringRun, type PytestScoringRunOptions } from './pytest-scoring-run.js';
export { readPristineInventory, addPristineFile, restorePristineFiles, type PristineInventory } from './pristine-files.js';
export { scorePytestReport, type ExpectedTests, type ReportScore, type StructuredPytestRun } from './score-pytest-report.js';
export { PytestScoringGuard } from './pytest-scoring-guard.js';
