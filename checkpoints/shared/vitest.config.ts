import { defineCheckpointConfig } from "./src/vitest-config.ts";

export default defineCheckpointConfig(import.meta.dirname);
