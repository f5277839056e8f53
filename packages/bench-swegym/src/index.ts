export {
  swegym as default,
  swegym,
  SWEGYM_DATASET,
  SWEGYM_DATASETS,
  instanceTask,
  streamTasks,
  swegymEntrypoint,
  swegymSecrets,
  swegymSolution,
  type StreamStats,
  type SwegymInstance,
  type SwegymOptions,
} from './swegym-benchmark.js';
export { SWEGYM_TEST_CMDS, TEST_PYTEST, swegymImageName, swegymTestCmd, swegymTestCommand } from './specs.js';
export { OFFLINE_ISSUES, buildOfflineInstances, type OfflineDataset, type OfflineIssue } from './offline/build-offline.js';
