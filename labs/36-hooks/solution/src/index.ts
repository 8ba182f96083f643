export { hookVerdict } from "./hook-verdict.ts";
