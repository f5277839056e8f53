import type { EvalResult } from './eval-result.js';
import type { Observation, ToolCall } from './types.js';

/** A file was rewritten. Lines are 1-based and inclusive; `start: null` means the whole file was replaced. */
export interface RewriteEvent {
  type: 'rewrite';
  /** The tool that made the change. */
  source: string;
  /** Absolute path inside the sandbox. */
  path: string;
  relativePath: string;
  start: number | null;
  end: number | null;
  /** Lines the new code occupies. */
  newLineCount: number;
  /** The file did not exist before. */
  created: boolean;
}

export interface EvalEvent {
  type: 'eval';
  source: string;
  result: EvalResult;
}

export interface StepEvent {
  type: 'step';
  toolCall: ToolCall;
  observation: Observation;
}

export type EnvEvent = RewriteEvent | EvalEvent | StepEvent;
