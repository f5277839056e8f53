import { sharedTestConfig } from '../../vitest.shared';

export default sharedTestConfig({ coverageThreshold: 60, testTimeout: 600_000 });
