export { checkTrace, type TraceCheck, type TraceProblem } from "./check-trace.ts";
