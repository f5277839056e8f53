/**
 * A task that runs after a delay, or at once when flushed, whichever comes first; it runs once.
 * `done` settles when it has run (its errors are swallowed: callers use it for best-effort cleanup).
 */
export class DelayedTask {
  readonly done: Promise<void>;
  private readonly timer: NodeJS.Timeout;
  private begin!: () => void;

  constructor(task: () => Promise<unknown> | unknown, delayMs: number) {
    let begun = false;
    this.done = new Promise<void>((resolve) => {
      this.begin = () => {
        if (begun) return;
        begun = true;
        clearTimeout(this.timer);
        resolve(
          Promise.resolve()
            .then(task)
            .then(() => undefined, () => undefined),
        );
      };
    });
    this.timer = setTimeout(() => this.begin(), delayMs);
  }

  /** Run it now (if it has not run yet); resolves when it is done. */
  flush(): Promise<void> {
    this.begin();
    return this.done;
  }
}
