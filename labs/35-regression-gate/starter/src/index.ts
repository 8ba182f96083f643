export { type BaselineTask, findRegressions } from "./regressions.ts";
