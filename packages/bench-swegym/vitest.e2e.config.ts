import { sharedTestConfig } from '../../vitest.shared';

const config = sharedTestConfig({ testTimeout: 900_000, sequential: true });
(config.test as { include?: string[] }).include = ['test/e2e/**/*.test.ts'];

export default config;
