import type { RunResult, Terminal } from '@debug-gym/spec';
import { addPristineFile, addTestTree, copyInventory, emptyInventory, readPristineInventory, restorePristineFiles, type PristineInventory } from './pristine-files.js';
import { runPytestScoring } from './pytest-scoring-run.js';
import type { ExpectedTests, StructuredPytestRun } from '@debug-gym/spec';

/**
 * What an env keeps between scoring runs of a pytest entrypoint: the pristine repository's protected
 * files and configuration, and the tests its first run collected. Every run restores the protected
 * files, then runs pytest through debug-gym's launcher.
 */
export class PytestScoringGuard {
  private inventory: PristineInventory = emptyInventory();
  private expected: ExpectedTests | null = null;
  /** Null until the pristine run has said which plugins load from the working copy. */
  private plugins: Array<[string, string]> | null = null;
  /** Null until the pristine run has said where its hook implementations come from. */
  private hookFiles: string[] | null = null;
  /** The configuration file the pristine run read ('' for none), null until it ran. */
  private inipath: string | null = null;

  constructor(
    private readonly hostDir: string,
    private readonly args: string,
    /** Let the terminal's fork server start the runs. */
    private readonly fork = false,
  ) {}

  /** Take over what `other` knows of the pristine repository (a forked env scores like its original). */
  copyFrom(other: PytestScoringGuard): void {
    this.inventory = copyInventory(other.inventory);
    this.expected = other.expected;
    this.plugins = other.plugins;
    this.hookFiles = other.hookFiles;
    this.inipath = other.inipath;
  }

  /** A fresh episode: read the pristine repository again, forget the expected tests. */
  reset(isReadonly: (relative: string) => boolean): void {
    this.inventory = readPristineInventory(this.hostDir, isReadonly);
    this.expected = null;
    this.plugins = null;
    this.hookFiles = null;
    this.inipath = null;
  }

  /**
   * One scoring run. `pristine`: the working copy is known untouched (the run at reset), so the
   * tests it reports become the expected tests of the episode.
   */
  async run(terminal: Terminal, timeoutMs: number, pristine: boolean): Promise<{ run: RunResult; structured: StructuredPytestRun }> {
    const restored = await restorePristineFiles(terminal, this.inventory.files);
    const plugins = pristine ? null : (this.plugins ?? []);
    const hookFiles = pristine ? null : this.hookFiles;
    const { run, report } = await runPytestScoring(terminal, {
      args: this.args,
      keep: this.inventory.candidates,
      plugins,
      links: this.inventory.links,
      trees: this.inventory.trees,
      treeFiles: this.inventory.treeFiles,
      shadowFiles: this.inventory.shadowFiles,
      hookFiles,
      inipath: pristine ? null : this.inipath,
      timeoutMs,
      fork: this.fork,
    });
    if (pristine && report?.finished && report.finished.tampered.length === 0 && !run.timedOut) {
      this.expected = { ids: [...report.tests.keys()], modules: [...report.collectErrors] };
      // The pristine repository's own plugin modules are allowed, and restored like conftest.py.
      this.plugins = report.finished.plugins;
      this.hookFiles = report.finished.hookFiles ?? [];
      this.inipath = report.finished.inipath ?? '';
      for (const [, path] of this.plugins) addPristineFile(this.inventory, this.hostDir, path);
      const root = report.finished.rootdir === '.' ? '' : `${report.finished.rootdir}/`;
      for (const id of [...this.expected.ids, ...this.expected.modules]) {
        const file = id.split('::')[0];
        if (file?.endsWith('.py')) {
          addPristineFile(this.inventory, this.hostDir, root + file);
          addTestTree(this.inventory, this.hostDir, root + file);
        }
      }
    }
    return { run, structured: { report, expected: this.expected, restored } };
  }
}
