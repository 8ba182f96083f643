/** Base of the CLI's own errors: sets `name` so logs show the class, keeps `cause`. */
export class CliError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A status reached `exitCodeFor` that the type says cannot exist: a programmer mistake
 * (an unchecked cast, a runtime older than the CLI), not a user error.
 */
export class UnknownRunStatusError extends CliError {
  constructor(readonly status: unknown) {
    super(`未知的运行状态：${String(status)}`);
  }
}
