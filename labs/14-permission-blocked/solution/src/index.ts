export { decideApproval } from "./approval.ts";
