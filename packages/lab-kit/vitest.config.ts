import { defineConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../source-condition.js";

export default defineConfig({
  // @coding-agent/* resolve to their src/, never to a build.
  ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
  test: {
    include: ["tests/**/*.test.ts"],
    // Fixture labs carry their own tests, run only through the runner under test.
    exclude: ["tests/fixtures/**", "**/node_modules/**"],
    // The timeout only turns a hang into a failure, never a slow machine.
    testTimeout: 120_000,
    // Most of these tests wait on child processes (vitest runs, tsc, timeouts), not on
    // this process's CPU: three files at once roughly halve the suite on two cores.
    maxWorkers: 3,
  },
});
