export { availableBackends, localBackend, testDockerImage, testPython, type Backend, type BackendName } from './backends.js';
export { createTestEnv, type TestEnvOptions } from './test-env.js';
export { sharedDataPath, testdir } from './testdir.js';
export { chromiumArgs, chromiumPath, chromiumUnavailable, launchTestBrowser, type TestBrowser } from './test-browser.js';
export { HOSTILE_TEXTS, writeSyntheticRun, type SyntheticRun, type SyntheticRunOptions } from './synthetic-run.js';
