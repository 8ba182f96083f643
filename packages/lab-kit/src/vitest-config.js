// Plain JavaScript on purpose: vitest loads config files with Node before any
// TypeScript transform, so what a config imports from the workspace must be JS.
import path from "node:path";
import { defineConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../../source-condition.js";

import { LAB_ALIAS, LAB_TEST_TIMEOUT_MS } from "./lab-test-settings.js";

export { LAB_ALIAS, LAB_TEST_TIMEOUT_MS };

/**
 * The vitest config every lab starter and solution uses. The tests live once, in the
 * lab's `tests/` folder beside `starter/` and `solution/`; `@lab` resolves to the
 * calling package's own `src/`, so the same test file proves both.
 *
 * @param {string} packageDir the starter or solution folder (`import.meta.dirname`)
 * @param {{ srcDir?: string }} [options] `srcDir`: folder whose `index.ts` is `@lab`
 */
export function defineLabConfig(packageDir, options = {}) {
  const srcDir = options.srcDir ?? path.join(packageDir, "src");
  return defineConfig({
    root: packageDir,
    resolve: {
      alias: [{ find: LAB_ALIAS, replacement: path.join(srcDir, "index.ts") }],
    },
    // @coding-agent/* resolve to their src/, never to a build: in the tests' (ssr)
    // environment, and in vitest's own, which loads a reporter given by path (`pnpm lesson
    // watch`'s hint reporter imports lab-kit, which imports @coding-agent/agent-core).
    ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
    environments: { __vitest__: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } } },
    test: {
      dir: path.dirname(packageDir),
      include: ["tests/**/*.test.ts"],
      testTimeout: LAB_TEST_TIMEOUT_MS,
      hookTimeout: LAB_TEST_TIMEOUT_MS,
      teardownTimeout: LAB_TEST_TIMEOUT_MS,
      globalSetup: [path.join(import.meta.dirname, "tests-guard.ts")],
    },
  });
}
