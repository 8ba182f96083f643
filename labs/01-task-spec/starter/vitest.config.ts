import { defineLabConfig } from "@bootcamp/lab-kit/vitest";

export default defineLabConfig(import.meta.dirname);
