import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Only a hang guard: on a busy machine the first HTTP round trip alone can take seconds.
    testTimeout: 60_000,
  },
});
