export {
  changedPaths,
  type GraderVerdict,
  gradeForbiddenUntouched,
  type Snapshot,
} from "./diff-graders.ts";
