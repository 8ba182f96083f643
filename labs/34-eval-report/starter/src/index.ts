export { passRateOf, stopKindOf } from "./stops.ts";
