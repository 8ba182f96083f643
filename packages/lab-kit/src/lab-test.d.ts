/** Options of {@link runLabTests}. */
export interface LabTestOptions {
  /** Extra vitest reporters, as module path and options (they run in the vitest process). */
  readonly reporters?: readonly (readonly [string, unknown])[];
  /** Time past the test timeout before a test counts as blocking its worker. */
  readonly hangGraceMs?: number;
  /** Where the watchdog's notices go; default process.stderr. */
  readonly stderr?: NodeJS.WritableStream;
}
/**
 * Runs a lab package's tests as `vitest run` would with the lab config (or in watch mode
 * with `--watch`), under a watchdog that fails a test blocking its worker and runs the
 * rest; resolves with the exit code.
 */
export declare function runLabTests(
  packageDir: string,
  args: readonly string[],
  options?: LabTestOptions,
): Promise<number>;
