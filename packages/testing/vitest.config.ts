import { sharedTestConfig } from '../../vitest.shared';

export default sharedTestConfig({ coverageThreshold: 70, testTimeout: 60_000 });
