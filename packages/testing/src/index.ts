export { createToolContext, writeRepository, type RepositoryFiles, type TestContextOptions, type TestToolContext } from './create-tool-context.js';
export { INVALID_ARGUMENTS_CODE, runTool, type RunToolOptions, type ToolRun } from './run-tool.js';
export {
  NOT_CONFORMANT_CODE,
  assertToolConformance,
  checkToolConformance,
  type ConformanceCheck,
  type ConformanceOptions,
  type ConformanceReport,
} from './tool-conformance.js';
export { badArguments, minimalArguments, probeArguments } from './generated-arguments.js';
