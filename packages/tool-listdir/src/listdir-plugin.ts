import { defineToolPlugin, type ToolPluginV1 } from '@debug-gym/spec';
import { listDirectory, type ListdirArguments, type ListdirOptions } from './list-directory.js';
import { meta } from './meta.js';

const DESCRIPTION =
  'List the files and folders of a directory of the repository, up to a given depth (default 1). ' +
  'The path is relative to the root of the repository; without a path the root is listed. ' +
  'Folders end with /, executable files with *, read-only files with (read-only).';

const INSTRUCTIONS = [
  DESCRIPTION,
  'Examples:',
  'listdir() lists the root of the repository.',
  'listdir(path="src/util") lists the folder src/util.',
  'listdir(path="src", depth=2) lists src and the folders inside it.',
].join('\n');

/** `listdir {path?, depth?}`. */
export const listdirTool: ToolPluginV1<ListdirOptions> = defineToolPlugin<ListdirOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  changesFiles: false,
  name: 'listdir',
  description: DESCRIPTION,
  instructions: INSTRUCTIONS,
  parameters: {
    type: 'object',
    properties: {
      path: { type: ['string', 'null'], description: 'The directory to list, relative to the root of the repository. Default: the root.' },
      depth: { type: ['number', 'null'], description: 'How many levels deep to list (1 to 20). Default 1.' },
    },
    required: [],
  },
  create: (options) => ({ run: (args, context) => listDirectory(args as ListdirArguments, context, options ?? {}) }),
});
