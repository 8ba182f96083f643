import { defineConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../source-condition.js";

export default defineConfig({
  // @coding-agent/* resolve to their src/, never to a build.
  ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
  test: {
    include: ["tests/**/*.test.ts"],
    // The checkpoint's real runs happen once, in beforeAll; the timeouts only turn a hang
    // into a failure.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
