// Setup file of a package run's project (`runner-child.ts`): its test files see the package
// folder as their working directory, as under the package's own `vitest run` (the runner's
// vitest process runs in the verifier's folder). A threads pool cannot change directory;
// its files keep the process's.
import { inject } from "vitest";

const packageDir = inject("labKitPackageDir" as never) as unknown;
if (typeof packageDir === "string" && process.cwd() !== packageDir) {
  try {
    process.chdir(packageDir);
  } catch {
    // Worker threads: process.chdir() is not supported there.
  }
}
