export { pdbTool as default, pdbTool, createPdb } from './pdb-plugin.js';
export { PdbTool, EMPTY_COMMAND_TEXT, ENTRYPOINT_REQUIRED_TEXT, type PdbSnapshot, type PdbToolOptions } from './pdb-tool.js';
export { helperCommand, bootstrapProgram, inlineBootstrapProgram, type HelperCommand } from './helper-command.js';
export { parseOutput, controlLines, STATE_OPEN, stateClose, newNonce, NONCE_ENV, CONTROL_PREFIX, type PdbState, type PdbFrame, type PdbBreakpoint } from './protocol.js';
export { prepareCommand, breakpointFile, MULTIPLE_COMMANDS_WARNING } from './parse-command.js';
export { markProgramEnd, PROGRAM_END_TEXT } from './format-observation.js';
