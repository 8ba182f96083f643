// 为测试重新导出 zod：测试要用它搭出本课代码读取的 schema。
export { z } from "zod";
export {
  createContractRegistry,
  describeTool,
  invalidInputError,
  validateToolInput,
} from "./tool-contract.ts";
