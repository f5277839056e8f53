export { taskEnvOptions } from './task-env-options.js';
export { PATCH_COMMANDS, applyPatch, type PatchApplyResult } from './apply-patch.js';
