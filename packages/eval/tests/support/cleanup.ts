import { rm } from "node:fs/promises";
import { afterAll } from "vitest";
import { scratchFolders } from "./suite.ts";

// The tests' own folders go once a file is done; what the harness leaves is what they check.
afterAll(async () => {
  await Promise.all(scratchFolders.map((dir) => rm(dir, { recursive: true, force: true })));
});
