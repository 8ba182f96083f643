/** `pnpm new:lesson NN slug 标题`: scaffolds labs/NN-slug (exit 2 if it exists or on bad usage). */
import path from "node:path";
import { processOutput, runNewLessonCli } from "@bootcamp/lab-kit";

const repoRoot = path.resolve(import.meta.dirname, "..");

process.exitCode = await runNewLessonCli(repoRoot, process.argv.slice(2), processOutput);
