import { sharedTestConfig } from '../../vitest.shared';

// End-to-end sweeps (every instance, Docker images) are in test/e2e/: `pnpm test:e2e`, not `pnpm test`.
export default sharedTestConfig({ coverageThreshold: 80, testTimeout: 600_000 });
