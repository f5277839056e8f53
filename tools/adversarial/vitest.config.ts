import { sharedTestConfig } from '../../vitest.shared';
import { AttackMatrixReporter } from './src/attack-matrix-reporter';

// Attacks start sandboxes, races and resource bombs: one file at a time keeps them from competing
// for the machine's two cores (no attack's verdict may depend on load).
const config = sharedTestConfig({ testTimeout: 120_000, sequential: true, backends: 'all' });
config.test = {
  ...config.test,
  // Its own results file: `pnpm test`'s summary adds up test-results.json files, and attacks are not part of it.
  reporters: ['default', ['json', { outputFile: 'attack-results.json' }], new AttackMatrixReporter()],
  globalSetup: ['./test/global-setup.ts'],
};
export default config;
