/** CLI 自己的错误的基类：设置 `name`，日志里能看到类名；保留 `cause`。 */
export class CliError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * `exitCodeFor` 收到了类型上不可能存在的状态：这是程序员的错误（未经检查的类型断言、比 CLI 旧的
 * Runtime），不是用户的错误。
 */
export class UnknownRunStatusError extends CliError {
  readonly status: unknown;

  constructor(status: unknown) {
    super(`未知的运行状态：${String(status)}`);
    this.status = status;
  }
}
