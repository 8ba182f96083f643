// zod, re-exported for the tests: they build the schemas this piece reads.
export { z } from "zod";
export {
  createContractRegistry,
  describeTool,
  invalidInputError,
  validateToolInput,
} from "./tool-contract.ts";
