export type { BenchmarkDataset, BenchmarkDockerSettings, BenchmarkTask, BenchmarkV1, LoadProgress, LoadTasksOptions, SolutionOptions, TaskSecret } from './benchmark/benchmark-v1.js';
export { defineBenchmark, isBenchmark } from './benchmark/define-benchmark.js';
export type { Breakpoint, EmitOptions, EnvSettings, EnvState, ResolvedPath, ToolBreakpoints, ToolContext, ToolWorkspace, TreeEntry, TreeListing } from './context/index.js';
export * from './errors/index.js';
export {
  loadPlugin,
  loadPluginPackage,
  loadToolPlugin,
  type LoadPluginOptions,
  type LoadToolPluginOptions,
  type LoadedPlugin,
  type PluginByKind,
  type ToolPackageManifest,
} from './plugin/load-plugin.js';
export { pluginCandidates } from './plugin/plugin-candidates.js';
export { SPEC_VERSION, type PluginKind, type PluginManifest, type PluginMeta, type SpecVersion } from './plugin/plugin-meta.js';
export { checkPluginPackage } from './plugin/check-plugin-package.js';
export { specVersionProblem } from './plugin/spec-version.js';
export type { ExpectedTests, PytestReport, PytestSummary, StructuredPytestRun, TestOutcome } from './scoring/pytest-types.js';
export type * from './terminal/index.js';
export { defineSynthGenerator, describeSynthGeneratorProblem, isSynthGenerator } from './synth/define-synth-generator.js';
export type { SynthCandidate, SynthContext, SynthGeneratorV1 } from './synth/synth-generator-v1.js';
export { assertToolPlugin, defineToolPlugin, describeToolPluginProblem, isToolPlugin } from './tool/define-tool-plugin.js';
export type { JsonSchemaObject, JsonSchemaProperty, JsonSchemaType } from './tool/json-schema.js';
export type { ToolCallInfo, ToolInstance, ToolPluginV1, ToolSchema } from './tool/tool-plugin-v1.js';
export type { EnvInfo, ProcessLaunch, TerminationReason } from './wire/env-info.js';
export type { EvalProcedure, EvalProcedureContext, EvalResult, RawRun, Scorer } from './wire/eval-result.js';
export type { EnvEvent, EvalEvent, RewriteEvent, StepEvent } from './wire/events.js';
export type { HiddenToolsChange, Observation, ToolCall } from './wire/types.js';
export { VERSION } from './version.js';
