export {
  formatPath,
  formatProblems,
  parseTask,
  parseTaskText,
  type TaskParseResult,
  type TaskProblem,
} from "./parse-task.ts";
export {
  type Budgets,
  budgetsSchema,
  DEFAULT_BUDGETS,
  type Task,
  taskSchema,
} from "./task-schema.ts";
