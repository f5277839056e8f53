import { describe, expect, it } from 'vitest';
import { DebugGymError, PathNotFoundError, UnrecoverableTerminalError, WorkspaceError } from '../src/index.js';

describe('DebugGymError.isInstance', () => {
  const notFound = new PathNotFoundError('a.py', '/work');
  const fatal = new UnrecoverableTerminalError('The container is gone.');

  it('matches the class it is called on and its subclasses only', () => {
    expect(DebugGymError.isInstance(notFound)).toBe(true);
    expect(WorkspaceError.isInstance(notFound)).toBe(true);
    expect(PathNotFoundError.isInstance(notFound)).toBe(true);
    expect(UnrecoverableTerminalError.isInstance(notFound)).toBe(false);
    expect(WorkspaceError.isInstance(fatal)).toBe(false);
    expect(UnrecoverableTerminalError.isInstance(fatal)).toBe(true);
  });

  it('recognises errors from another copy of the package by class name', () => {
    class DebugGymErrorCopy extends Error {
      constructor(message: string) {
        super(message);
        (this as unknown as Record<symbol, unknown>)[Symbol.for('debug-gym.error')] = true;
      }
    }
    Object.defineProperty(DebugGymErrorCopy, 'name', { value: 'DebugGymError' });
    class WorkspaceErrorCopy extends DebugGymErrorCopy {}
    Object.defineProperty(WorkspaceErrorCopy, 'name', { value: 'WorkspaceError' });
    const foreign = new WorkspaceErrorCopy('x');
    expect(WorkspaceError.isInstance(foreign)).toBe(true);
    expect(DebugGymError.isInstance(foreign)).toBe(true);
    expect(UnrecoverableTerminalError.isInstance(foreign)).toBe(false);
  });

  it('rejects plain errors and non-errors', () => {
    expect(DebugGymError.isInstance(new Error('x'))).toBe(false);
    expect(WorkspaceError.isInstance('x')).toBe(false);
    expect(WorkspaceError.isInstance(null)).toBe(false);
  });
});
