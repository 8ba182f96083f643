export { runPool } from "./pool.ts";
