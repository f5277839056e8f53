export {
  swebenchDebug as default,
  swebenchDebug,
  applyTestPatchCommands,
  instanceTask,
  plainEvaluation,
  swebenchDebugScorer,
  swebenchDebugSecrets,
  swebenchDebugSolution,
  type SwebenchDebugInstance,
} from './swebench-debug-benchmark.js';
