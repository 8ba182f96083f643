export { decideRetry } from "./decide.ts";
