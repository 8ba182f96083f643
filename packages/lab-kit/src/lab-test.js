// The body of the `lab-test` bin, importable so tests can run it in-process.
// Plain JavaScript on purpose: the bin runs on Node 20 without a TypeScript loader.
import { parseCLI, startVitest } from "vitest/node";
import { defineLabConfig } from "./vitest-config.js";

/**
 * Runs a lab package's tests as `vitest run` would with the lab config: once, or in watch
 * mode with `--watch`. Resolves with the exit code vitest chose.
 *
 * @param {string} packageDir the starter or solution folder
 * @param {readonly string[]} args vitest CLI arguments (a leading `--` is ignored)
 * @returns {Promise<number>}
 */
export async function runLabTests(packageDir, args) {
  const { filter, options } = parseCLI([
    "vitest",
    ...args.filter((arg, index) => !(index === 0 && arg === "--")),
  ]);
  const vitest = await startVitest(
    "test",
    filter,
    { ...options, watch: options.watch ?? false, root: packageDir, config: false },
    defineLabConfig(packageDir),
  );
  if (!vitest.shouldKeepServer()) await vitest.close();
  else await new Promise((resolve) => vitest.onClose(() => resolve(undefined)));
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}
