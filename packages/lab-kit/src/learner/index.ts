/**
 * The learner tools behind `pnpm lessons` and `pnpm lesson hint|reset|diff|watch NN`:
 * progress from one test run, hints that go one step further each time, a reset that
 * backs up first, a diff of the exercise regions, and a notice whenever tests were edited.
 */
export type { LearnerContext, RunLabTargets } from "./learner-context.ts";
export { runLessonCommand } from "./lesson-command.ts";
export { runLessonsCommand } from "./lessons-command.ts";
