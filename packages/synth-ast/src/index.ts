import { astGenerator } from './ast-generator.js';

export default astGenerator;
export { AST_OPERATORS, MUTATE_SCRIPT, astGenerator, mutateFiles, type AstMutationResult, type AstOperator } from './ast-generator.js';
export { meta } from './meta.js';
