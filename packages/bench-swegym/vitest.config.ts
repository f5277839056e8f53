import { sharedTestConfig } from '../../vitest.shared';

const config = sharedTestConfig({ coverageThreshold: 80, testTimeout: 600_000 });
// End-to-end sweeps (every instance, Docker images) run with `pnpm test:e2e`, not in `pnpm test`.
(config.test as { exclude?: string[] }).exclude = ['test/e2e/**', 'node_modules/**'];

export default config;
