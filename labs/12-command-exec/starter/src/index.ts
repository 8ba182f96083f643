export { runProcess } from "./exec.ts";
