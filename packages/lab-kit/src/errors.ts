/**
 * Errors lab-kit throws. Only programmer or configuration mistakes throw (two targets with
 * one label, a relative path); everything a lab or a learner can get wrong is a value in
 * a report.
 */

/** Base of every error lab-kit throws: sets `name` and keeps `cause`. */
export class LabKitError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** `runLabTargets` was called with targets it cannot run (duplicate labels, relative paths). */
export class InvalidRunTargetError extends LabKitError {}
