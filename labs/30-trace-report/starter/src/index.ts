export {
  type CallRow,
  escapeHtml,
  formatCost,
  type ReportEvent,
  renderStep,
  type StepRow,
  summarizeSteps,
} from "./step-report.ts";
