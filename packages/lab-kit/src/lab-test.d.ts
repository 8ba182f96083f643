/** Runs a lab package's tests as `vitest run` would with the lab config; resolves with the exit code. */
export declare function runLabTests(packageDir: string, args: readonly string[]): Promise<number>;
