export { classifyFailure } from "./classify.ts";
