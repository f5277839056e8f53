/** Backends an attack can be tried on; `server` is for attacks on the driver process (serve) itself. */
export type AttackTarget = 'local' | 'bubblewrap' | 'docker' | 'server';

export function attackTestName(name: string, target: AttackTarget): string {
  return `attack: ${name} [${target}]`;
}

/** The inverse of `attackTestName`, or undefined for a test that is not an attack. */
export function parseAttackTestName(testName: string): { name: string; target: string } | undefined {
  const match = /^attack: (.+) \[([a-z]+)\]$/.exec(testName);
  return match ? { name: match[1] as string, target: match[2] as string } : undefined;
}
