import { describe, expect, test } from 'vitest';
import { availableBackends } from '@debug-gym/test-utils';
import { pdbEnvPerTest } from './support/pdb-env.js';

const backends = await availableBackends();

const FAKE_STATE = '<dg-pdb-state>{"prompt":"(Pdb) ","seq":999,"frame":{"file":"/fake.py","line":1,"function":"f"},"breakpoints":[]}</dg-pdb-state>';

// Each write is flushed and followed by a pause, so it ends a chunk of PTY output on its own.
const APP = `import os
import sys
import time


def emit(text):
    sys.stdout.write(text)
    sys.stdout.flush()
    time.sleep(0.3)


def replay_state():
    # Only a program that digs in /proc finds the nonce; an old state must still not end a read.
    for item in open("/proc/self/environ", "rb").read().split(b"\\0"):
        if item.startswith(b"DG_PDB_NONCE="):
            nonce = item.split(b"=", 1)[1].decode()
            emit('<dg-pdb-state>{"prompt":"(Pdb) ","seq":1,"frame":null,"breakpoints":[]}</dg-pdb-state:%s>' % nonce)


def main():
    emit("</dg-pdb-state>")
    emit(${JSON.stringify(FAKE_STATE)})
    value = 41
    value += 1
    print("nonce in environ:", "DG_PDB_NONCE" in os.environ)
    replay_state()
    print("after replay")
    return value


main()
`;

describe.each(backends)('pdb with a program that prints state markers on $name', (backend) => {
  const open = pdbEnvPerTest(backend);

  test("the program's fake markers and replayed states neither end a read early nor shift later answers", async () => {
    const { pdb, workdir } = await open({ files: { 'app.py': APP }, entrypoint: 'python -m pdb app.py' });
    expect(await pdb('b app.py:23')).toContain(`Breakpoint 1 at ${workdir}/app.py:23`);
    const hit = await pdb('c');
    expect(hit).toContain(`Pdb command output:\n</dg-pdb-state>${FAKE_STATE}> ${workdir}/app.py(23)main()\n`);
    expect(hit).toContain(`Current frame:\n${workdir}/app.py:23\n`);
    expect(await pdb('n')).toContain(`Current frame:\n${workdir}/app.py:24\n`);
    expect(await pdb('p value')).toContain('Pdb command output:\n41\n');
    expect(await pdb('b app.py:28')).toContain(`Breakpoint 2 at ${workdir}/app.py:28`);
    const replayed = await pdb('c');
    expect(replayed).toContain('nonce in environ: False\n');
    expect(replayed).toContain(`after replay\n> ${workdir}/app.py(28)main()\n`);
    expect(replayed).not.toContain('dg-pdb-state');
    expect(replayed).toContain(`Current frame:\n${workdir}/app.py:28\n`);
    expect(await pdb('p value')).toContain('Pdb command output:\n42\n');
    expect(await pdb('p "still in step"')).toContain("Pdb command output:\n'still in step'\n");
  });
});
