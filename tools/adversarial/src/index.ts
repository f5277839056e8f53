export { attack } from './attack.js';
export { attackTestName, parseAttackTestName, type AttackTarget } from './attack-name.js';
