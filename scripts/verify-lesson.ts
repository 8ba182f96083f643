/**
 * `pnpm verify:lesson NN | --all [--seed N]`: proves lessons are sound and reports, apart,
 * where the learner's own starter stands. Exit codes: 0 sound, 1 a check failed, 2 bad usage.
 */
import path from "node:path";
import { processOutput, runVerifyCli } from "@bootcamp/lab-kit";

const repoRoot = path.resolve(import.meta.dirname, "..");

process.exitCode = await runVerifyCli(repoRoot, process.argv.slice(2), processOutput);
