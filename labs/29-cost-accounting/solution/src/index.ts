export { costOf } from "./cost-of.ts";
