export { judgeLoopWindow, labelOf } from "./judge-window.ts";
