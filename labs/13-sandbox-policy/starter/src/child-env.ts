/**
 * 第 13 课：子进程的环境从白名单建起。
 *
 * `spawn` 不传 `env` 时，子进程继承父进程的全部环境变量：开发者终端里的
 * `OPENAI_API_KEY`、`GITHUB_TOKEN`、`DATABASE_URL`……模型让 Agent 跑一句 `env`
 * 或 `node -e "fetch(...process.env)"`，它们就全部到手。本课的策略只把白名单上的
 * 名字交给子进程，而且名字像密钥的，即使在白名单上也不给。
 *
 * 程序解析（名字 → PATH 上的绝对路径）和 cwd 来自总项目的 `createSandboxPolicy`；
 * 你只写 `buildChildEnv`。
 */
import { SECRET_ENV_NAME } from "@coding-agent/agent-core";
import {
  createSandboxPolicy,
  DEFAULT_ENV_ALLOWLIST,
  type PolicyOptions,
  type SandboxPolicy,
} from "@coding-agent/tools";

/** 名字像不像密钥（第 08 课的 `SECRET_ENV_NAME`，不分大小写）。 */
export function looksSecret(name: string): boolean {
  return SECRET_ENV_NAME.test(name);
}

/**
 * 子进程的环境：只取 `allowlist` 上、`parent` 里确实有的变量；名字像密钥的
 * （`*_KEY`、`*_TOKEN`、`*_SECRET`、`*_PASSWORD`、`AUTH`、`COOKIE`……，不分大小写）
 * 即使在白名单上也不取。返回一个新对象，`parent` 不变。
 */
export function buildChildEnv(
  parent: Readonly<Record<string, string | undefined>>,
  allowlist: readonly string[],
): Record<string, string> {
  // #region exercise
  // TODO(lab-13): 现在子进程拿到父进程的全部环境，和 spawn 不传 env 时一样：
  // 密钥、LD_PRELOAD、DATABASE_URL 全都跟着过去。要做到：返回的新对象里只有
  // allowlist 上、parent 自己（不是原型上）有的字符串变量；名字像密钥的，即使
  // 在白名单上也不给。提示：pnpm lesson hint 13
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined) env[name] = value;
  }
  void allowlist; // 白名单还没用上；实现时删掉这一行。
  return env;
  // #endregion exercise
}

/**
 * 本课的策略：程序解析与 cwd 用总项目的 `createSandboxPolicy`，环境用你写的
 * `buildChildEnv`（默认白名单 `DEFAULT_ENV_ALLOWLIST` 加上 `allowEnv`）。
 */
export function createPolicy(options: PolicyOptions): SandboxPolicy {
  const policy = createSandboxPolicy(options);
  const env = buildChildEnv(options.env ?? process.env, [
    ...DEFAULT_ENV_ALLOWLIST,
    ...(options.allowEnv ?? []),
  ]);
  return { cwd: policy.cwd, env, resolveProgram: (name) => policy.resolveProgram(name) };
}
