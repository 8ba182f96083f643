export { runAll } from "./run-all.ts";
