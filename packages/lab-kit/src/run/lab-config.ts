import path from "node:path";
import { defineConfig, type ViteUserConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../../../source-condition.js";
import { loopGuardPlugin } from "./loop-guard-transform.ts";
import { LAB_ALIAS, LAB_TEST_TIMEOUT_MS } from "./settings.ts";

export interface LabConfigOptions {
  /** Folder whose `index.ts` the tests import as `@lab`; defaults to `<packageDir>/src`. */
  readonly srcDir?: string;
  /** Warn on stderr when the lab's `tests/` differ from HEAD (the learner's own runs). */
  readonly warnIfTestsChanged?: boolean;
}

const LOOP_GUARD_SETUP = path.join(import.meta.dirname, "loop-guard.ts");
const LAB_HOME_SETUP = path.join(import.meta.dirname, "lab-home.ts");
const TESTS_GUARD = path.join(import.meta.dirname, "..", "tests-guard.ts");

/**
 * The vitest config of every lab test run: the learner's own (`pnpm --dir labs/NN/starter
 * test`, `pnpm lesson watch`) and each target of `verify:lesson` / `pnpm lessons`. The tests
 * live once, in the lab's `tests/` beside `starter/` and `solution/`; `@lab` resolves to the
 * package's own `src/` (or `srcDir`), so the same test file proves both. Every loop of the
 * code under test and of the tests carries the loop guard, and the one timeout applies; a
 * run of the capstone keeps its records in a temporary `$CODING_AGENT_HOME` (`lab-home.ts`).
 */
export function defineLabConfig(
  packageDir: string,
  options: LabConfigOptions = {},
): ViteUserConfig {
  const labDir = path.dirname(packageDir);
  const srcDir = options.srcDir ?? path.join(packageDir, "src");
  return defineConfig({
    root: packageDir,
    plugins: [loopGuardPlugin([srcDir, path.join(labDir, "tests")])],
    resolve: { alias: [{ find: LAB_ALIAS, replacement: path.join(srcDir, "index.ts") }] },
    // @coding-agent/* resolve to their src/, never to a build: in the tests' (ssr)
    // environment, and in vitest's own, which loads a reporter given by path (`pnpm lesson
    // watch`'s hint reporter imports lab-kit, which imports @coding-agent/agent-core).
    ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
    environments: { __vitest__: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } } },
    // Inline PostCSS options: without them vite searches every folder up to the file
    // system root for a PostCSS config, per project. Lab tests import no CSS.
    css: { postcss: {} },
    test: {
      dir: labDir,
      include: ["tests/**/*.test.ts"],
      testTimeout: LAB_TEST_TIMEOUT_MS,
      hookTimeout: LAB_TEST_TIMEOUT_MS,
      teardownTimeout: LAB_TEST_TIMEOUT_MS,
      setupFiles: [LOOP_GUARD_SETUP, LAB_HOME_SETUP],
      ...(options.warnIfTestsChanged === false ? {} : { globalSetup: [TESTS_GUARD] }),
    },
  });
}
