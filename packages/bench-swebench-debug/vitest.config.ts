import { sharedTestConfig } from '../../vitest.shared';

export default sharedTestConfig({ coverageThreshold: 80, testTimeout: 600_000 });
