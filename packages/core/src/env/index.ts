export { BreakpointStore } from './breakpoints.js';
export { EMPTY_TOOL_RESPONSE, NO_TOOL_CALL_TEXT, RepoEnv, TEST_ARTEFACTS, type RepoEnvOptions } from './repo-env.js';
export { DEFAULT_MAX_REPOSITORY_ENTRIES, checkRepositoryPath } from './repository-path.js';
export { ToolRegistry, parametersOf, type RegisteredTool, type ToolFilter, type ToolSpec } from './tool-registry.js';
