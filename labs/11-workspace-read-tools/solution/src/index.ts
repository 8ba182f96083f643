export {
  createConfinedWorkspace,
  outsideWorkspace,
  resolveInWorkspace,
  toRelative,
} from "./confine.ts";
