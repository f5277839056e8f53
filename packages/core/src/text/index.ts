export { normalizeOutput, stripAnsi } from './normalize-output.js';
