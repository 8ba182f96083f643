import { defineConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../source-condition.js";

export default defineConfig({
  // @coding-agent/* resolve to their src/, never to a build.
  ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
  test: {
    include: ["tests/**/*.test.ts"],
    setupFiles: ["tests/support/cleanup.ts"],
    // Real child processes and a real Redis: the timeout only turns a hang into a failure.
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
