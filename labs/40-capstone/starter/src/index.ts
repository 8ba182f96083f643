export { acceptCapstone } from "./accept-capstone.ts";
export type {
  CapstoneCheck,
  CapstoneEvidence,
  CapstoneReason,
  CapstoneVerdict,
  FinishEvidence,
  PatchEntry,
  RunJson,
} from "./evidence.ts";
