import { defineCheckpointConfig } from "@bootcamp/checkpoint-shared/vitest";

export default defineCheckpointConfig(import.meta.dirname);
