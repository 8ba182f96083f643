import { defineConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../source-condition.js";

export default defineConfig({
  // @coding-agent/* resolve to their src/, never to a build.
  ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/fixtures/**", "**/node_modules/**"],
    // Only so that a hang becomes a failure: packing, an npm install and child runs.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
