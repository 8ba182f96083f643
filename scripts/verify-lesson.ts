/**
 * `pnpm verify:lesson NN | --all [--seed N]`: proves lessons are sound and reports, apart,
 * where the learner's own starter stands. Exit codes: 0 sound, 1 a check failed, 2 bad usage.
 */
import path from "node:path";
import { prestartRunner } from "@bootcamp/lab-kit/runner-prestart";

// The runner's vitest process starts while this process loads the verifier's modules.
prestartRunner();
const { processOutput, runVerifyCli } = await import("@bootcamp/lab-kit");

const repoRoot = path.resolve(import.meta.dirname, "..");

process.exitCode = await runVerifyCli(repoRoot, process.argv.slice(2), processOutput);
