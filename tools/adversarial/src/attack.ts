import { it } from 'vitest';
import { type AttackTarget, attackTestName } from './attack-name.js';

/**
 * One attack on one backend, as a test: it passes when the attack was *held* (the sandbox, the
 * reward or the server withstood it). The matrix reporter reads the name back.
 */
export function attack(name: string, target: AttackTarget, fn: () => Promise<void>, timeoutMs?: number): void {
  it(attackTestName(name, target), fn, timeoutMs);
}
