import { DebugGymError, type DebugGymErrorOptions } from '@debug-gym/spec';

/**
 * What can stop `debug-gym synth`: codes `DG_SYNTH_BASELINE_FAILED` (the clean repository's tests do
 * not pass), `DG_SYNTH_RUNNER_FAILED` (the in-sandbox test runner said nothing readable),
 * `DG_SYNTH_GENERATOR_UNKNOWN`, `DG_SYNTH_OUT_EXISTS`, `DG_SYNTH_HEALTH_FAILED`, `DG_SYNTH_REPO_INVALID`.
 */
export class SynthError extends DebugGymError {
  constructor(code: `DG_SYNTH_${string}`, message: string, options: DebugGymErrorOptions = {}) {
    super(code, message, options);
  }
}
