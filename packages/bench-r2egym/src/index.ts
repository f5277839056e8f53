export {
  r2egym as default,
  r2egym,
  HIDDEN_TESTS_DIR,
  HIDDEN_TESTS_FAILED,
  R2EGYM_DATASET,
  VENV_PATH,
  goldPatchOf,
  hiddenTestsScript,
  instanceTask,
  r2egymEvaluation,
  r2egymScorer,
  r2egymSecrets,
  r2egymSolution,
  resetCommands,
  streamTasks,
  taskInstance,
  type R2egymOptions,
  type StreamStats,
} from './r2egym-benchmark.js';
export {
  ExpectedOutputError,
  decolorKeys,
  evalDetails,
  instructionsOf,
  parseExpectedOutput,
  parseLogPytest,
  parseLogPytestWithOptionalPasses,
  testCommandOf,
  type R2eEvalDetails,
  type R2eStatus,
  type R2eStatusMap,
  type R2eTestCommand,
} from './harness.js';
export { InstanceFormatError, instanceIdOf, parseInstance, type R2egymInstance } from './instance.js';
export { commitPatch, fileDiffPatch, isTestFile, parseGitDiff, type FileDiff, type ParsedCommit } from './parsed-commit.js';
export { R2EGYM_SPLITS } from './splits.js';
export { EXPECTED_FAILURE_TESTS, OFFLINE_COMMITS, buildOfflineInstances, isGoodExec, type OfflineCommit, type OfflineDataset } from './offline/build-offline.js';
