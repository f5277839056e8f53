import { type JsonSchemaObject } from '@debug-gym/spec';

const EXAMPLES = [
  `pdb(command="b mttl/models/modifiers/mlp.py:42") to set a breakpoint at line 42 in the file with the path 'mttl/models/modifiers/mlp.py'.`,
  `pdb(command="c") to continue the execution until the next breakpoint.`,
  `pdb(command="p x") to print the value of the variable x in the current context.`,
  `pdb(command="cl src/code.py:26") to clear the breakpoint at line 26 in the file 'src/code.py'.`,
  `pdb(command="l", entrypoint="python -m pdb src/app.py") to list the source around the current frame after starting the PDB session for 'src/app.py'.`,
];

const BASE_DESCRIPTION =
  'An interface to the Python debugger PDB. Send a command to the PDB terminal. The command should be a valid PDB command.' +
  "\nWhen using the breakpoint command (e.g., 'b', 'break', 'cl', 'clear'), make sure you specify the file path and line number in the format `file_path:line_number`." +
  '\nPDB sessions are restarted after a successful edit, or if the entrypoint changes. Breakpoints are persistent across PDB sessions and will be restored automatically.' +
  '\nExamples (for demonstration purposes only, you need to adjust the tool calling format according to your specific syntax):\n' +
  EXAMPLES.join('\n');

/** The original's description, with the note that matches `setDefaultEntrypoint`. */
export function pdbDescription(entrypointRequired: boolean): string {
  return entrypointRequired
    ? `${BASE_DESCRIPTION}\nNote: When using the pdb tool, an entrypoint must be provided.`
    : `${BASE_DESCRIPTION}\nNote: You can optionally specify an 'entrypoint' argument to control how the PDB session is started. If not provided, the environment's default debug entrypoint will be used.`;
}

const COMMAND = {
  type: 'string',
  description:
    'The command to be sent to the PDB terminal. The command should be a valid PDB command. See https://docs.python.org/3/library/pdb.html for more information.',
} as const;

/**
 * The original's arguments. Without a default entrypoint, `entrypoint` is a required string (the
 * original removed its `null` type and changed its description); calls are still checked against the
 * optional form, so a missing one gets the original's "An entrypoint must be provided" answer.
 */
export function pdbParameters(entrypointRequired: boolean): JsonSchemaObject {
  if (entrypointRequired) {
    return {
      type: 'object',
      properties: {
        command: { ...COMMAND },
        entrypoint: { type: 'string', description: 'The entrypoint command to start the pdb session. Must be provided when using the pdb tool.' },
      },
      required: ['command', 'entrypoint'],
    };
  }
  return {
    type: 'object',
    properties: {
      command: { ...COMMAND },
      entrypoint: {
        type: ['string', 'null'],
        description:
          "The entrypoint command to start the pdb session. If null, the last provided entrypoint or the environment's debug_entrypoint will be used, in priority order.",
      },
    },
    required: ['command'],
  };
}
