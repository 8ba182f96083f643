import { createSandboxPolicy } from "../../src/sandbox/policy.ts";
import { createRunTests, type RunTestsOptions } from "../../src/test-runs/run-tests.ts";
import { createWorkspace } from "../../src/workspace.ts";

/**
 * `run_tests` over the folder `dir`, no command allowed beyond the test command, with the
 * given options; unsandboxed unless `sandbox` says otherwise.
 */
export function runTestsIn(
  dir: string,
  options: Omit<RunTestsOptions, "policy" | "sandbox"> & Partial<Pick<RunTestsOptions, "sandbox">>,
) {
  return createRunTests({
    policy: createSandboxPolicy({ workspace: createWorkspace(dir), allowCommands: [] }),
    sandbox: { kind: "none" },
    ...options,
  });
}
