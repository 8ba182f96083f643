export { judgeFinish } from "./judge.ts";
