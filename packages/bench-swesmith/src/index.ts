export {
  swesmith as default,
  swesmith,
  TESTBED_PATH,
  applyBugCommands,
  instancePlan,
  instanceTask,
  streamTasks,
  swesmithEvaluation,
  swesmithScorer,
  swesmithSecrets,
  swesmithSolution,
  taskInstance,
  type InstancePlan,
  type StreamStats,
  type SwesmithOptions,
} from './swesmith-benchmark.js';
export {
  APPLY_PATCH_FAIL,
  DOCKER_ORG,
  HarnessError,
  LOG_PARSERS,
  MAP_REPO_TO_PARSER,
  TAG,
  TESTS_TIMEOUT,
  TEST_OUTPUT_END,
  TEST_OUTPUT_START,
  TEST_STATUSES,
  dockerImageRef,
  evalTestsReport,
  filterIrrelevantTests,
  imageNameOf,
  parseLogAutograd,
  parseLogGotest,
  gotestLine,
  parseLogMypy,
  parseLogParamiko,
  parseLogPytest,
  parseLogPythonSlugify,
  parseLogTornado,
  parserNameForRepo,
  readTestOutput,
  repoCommitFromImageName,
  resolutionStatus,
  testCommand,
  validReport,
  type EvalTestsOptions,
  type LogParser,
  type LogParserName,
  type ResolutionStatus,
  type StatusMap,
  type TestStatus,
  type TestsReport,
} from './harness.js';
export { MAP_REPO_TO_SPECS, TEST_PYTEST, type RepoSpec } from './specs.js';
export { SWESMITH_SPLITS } from './splits.js';
export { InstanceFormatError, parseInstance, type SwesmithInstance } from './instance.js';
export { streamRows, type StreamedRow } from './stream-rows.js';
export { reversePatch } from './reverse-patch.js';
export { SWESMITH_DATASET, fetchHfDataset, hubEndpoint, type HfDatasetRef } from './hf-dataset.js';
export { Selection, parseSelectors, type Selector } from './select.js';
export { buildOfflineInstances, OFFLINE_BUGS, type OfflineBug, type OfflineDataset } from './offline/build-offline.js';
