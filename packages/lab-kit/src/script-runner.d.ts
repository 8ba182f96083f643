/**
 * Runs a TypeScript script of the repository bundled (see script-runner.js): `process.argv`
 * is `[node, entry, ...args]` when it starts.
 */
export function runScript(
  entry: string,
  options: {
    readonly repoRoot: string;
    readonly args: readonly string[];
    readonly cacheDir?: string;
  },
): Promise<void>;
/** The cached bundle of `entry`, built now if needed; throws when it cannot be faithful. */
export function scriptBundle(
  entry: string,
  options: { readonly repoRoot: string; readonly cacheDir: string },
): Promise<string>;
