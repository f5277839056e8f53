let warned = false;

/**
 * The bubblewrap backend limits each process (RLIMIT_AS, RLIMIT_NPROC) and the size of its tmpfs
 * mounts, not the jail's total memory or CPU (that needs cgroups): said once per process.
 */
export function warnLimitsOnce(maxMemoryBytes: number): void {
  if (warned) return;
  warned = true;
  const mib = Math.round(maxMemoryBytes / (1024 * 1024));
  process.stderr.write(
    `debug-gym: the bubblewrap sandbox caps memory per process (${mib} MiB of address space, maxMemoryBytes), ` +
      'the number of processes (maxProcesses) and the size of its working copy, /tmp and /dev/shm (tmpfs in memory); ' +
      'it does not cap the total memory or CPU of all its processes. Use the docker terminal for those.\n',
  );
}
