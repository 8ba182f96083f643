/**
 * Every CLI test runs with its own `$CODING_AGENT_HOME` (run folders never land in the
 * user's home) and from an empty working folder, so a run without `--workspace` does not
 * judge this package (whose `package.json` has a test script the finish gate would ask for).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.CODING_AGENT_HOME = mkdtempSync(join(tmpdir(), "coding-agent-home-"));
export const EMPTY_WORKSPACE = mkdtempSync(join(tmpdir(), "coding-agent-empty-"));
