/**
 * What every course tool (verify:lesson, lessons, lesson, new:lesson, the bench scripts)
 * shares at its edge: where it writes and the exit codes it ends with. The capstone CLI has
 * its own (`@coding-agent/cli`): its users do not install the course tooling.
 */

/** Where a course tool writes: the process streams in a script, buffers in a test. */
export interface CliOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/**
 * The exit codes of the course tools: 0 done (a lesson sound, a reset made), 1 the tool ran
 * and the answer is no (a check failed, a reset declined or impossible, a bench target
 * missed), 2 bad usage or a lab the tool cannot use.
 */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2 } as const;

/** The process's own stdout and stderr, for the scripts. */
export const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};
