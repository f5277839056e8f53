import { sharedTestConfig } from '../../vitest.shared';

// The helpers themselves are exercised by every package that uses them; what is tested here is the
// repository's test tooling (scripts/test-summary.mjs).
export default sharedTestConfig();
