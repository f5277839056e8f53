export { IGNORE_FILE, PathRules, READONLY_FILE, parseRulesFile, type RepositoryRules } from './path-rules.js';
export { DEFAULT_MAX_READ_BYTES, Workspace, type WorkspaceRulesOptions } from './workspace.js';
