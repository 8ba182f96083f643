export {
  checkTask,
  fieldName,
  HARNESS_FLAGS,
  harnessFlagIn,
  type TaskCheck,
  TaskSchema,
  type TaskSpec,
} from "./task-check.ts";
