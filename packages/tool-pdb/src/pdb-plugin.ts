import { defineToolPlugin, type ToolPluginV1 } from '@debug-gym/spec';
import { pdbDescription, pdbParameters } from './pdb-schema.js';
import { PdbTool, type PdbToolOptions } from './pdb-tool.js';
import { meta } from './meta.js';

const INSTRUCTIONS = `A live \`python -m pdb\` session on the program under test (by default the test command under pdb).
- One command per call; \`p\`/\`pp\`/\`print(...)\` may span several lines. Only the first of several \`;\`-separated commands runs.
- Every answer ends with the current frame (\`file:line\`) and the source around it.
- \`b file.py:12\`, \`b file.py:12, x > 3\` (conditional), \`tbreak file.py:12\` (one-shot); \`b\` lists breakpoints, \`cl\` clears them all.
  Breakpoints survive restarts: after a rewrite pdb restarts on the new code; breakpoints below the rewritten lines
  move with them, those on a rewritten line are removed (a whole-file rewrite removes the file's breakpoints).
- When the program ends, pdb restarts it from the beginning; a command that runs longer than the time limit is interrupted.`;

/** The pdb tool: a persistent Python debugger session with breakpoints that survive restarts. */
export const pdbTool: ToolPluginV1<PdbToolOptions> = defineToolPlugin<PdbToolOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  name: 'pdb',
  description: pdbDescription(false),
  instructions: INSTRUCTIONS,
  parameters: pdbParameters(false),
  create: (options?: PdbToolOptions) => new PdbTool(options),
});

/** A pdb tool instance outside an env config (e.g. in tests or custom harnesses). */
export function createPdb(options?: PdbToolOptions): PdbTool {
  return new PdbTool(options);
}
