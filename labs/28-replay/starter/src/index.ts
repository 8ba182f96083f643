export { compareWithLog } from "./compare-with-log.ts";
