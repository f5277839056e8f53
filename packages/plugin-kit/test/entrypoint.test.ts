import { describe, expect, test } from 'vitest';
import { defaultDebugEntrypoint, normalizeEntrypoint } from '../src/index.js';

describe('entrypoints', () => {
  test.each([
    ['python -m pytest -sq .', '/usr/bin/python3 -m pytest -sq .'],
    ['python3 file.py', '/usr/bin/python3 file.py'],
    ['pytest tests', '/usr/bin/python3 -m pytest tests'],
    ['python', '/usr/bin/python3'],
    ['xvfb-run python app.py', 'xvfb-run python app.py'],
    ['  bash run.sh ', 'bash run.sh'],
  ])('normalizeEntrypoint(%j) points at the configured interpreter', (input, expected) => {
    expect(normalizeEntrypoint(input, '/usr/bin/python3')).toBe(expected);
  });

  test.each([
    ['python -m pytest -sq .', 'py -m pdb -m pytest -sq .'],
    ['python -m pdb -m pytest -s test.py', 'py -m pdb -m pytest -s test.py'],
    ['bash run.sh', 'bash run.sh'],
  ])('defaultDebugEntrypoint(%j) runs it under pdb', (input, expected) => {
    expect(defaultDebugEntrypoint(input, 'py')).toBe(expected);
  });
});
