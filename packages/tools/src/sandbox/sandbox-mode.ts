import path from "node:path";
import { probeBwrap } from "./bwrap.ts";
import { findOnPath } from "./policy.ts";

/** `--sandbox`: where `run_command` runs (docs/contracts.md §6). */
export const SANDBOX_MODES = ["auto", "bwrap", "none"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The sandbox a run will use, decided once before the run starts. */
export type SandboxChoice =
  | { readonly kind: "bwrap"; readonly bwrap: string }
  /** Policy only; `warning` (Chinese, one line) when `auto` found no usable bwrap. */
  | { readonly kind: "none"; readonly warning?: string }
  /** `--sandbox bwrap` asked for and bwrap cannot run: a usage error, with how to fix it. */
  | { readonly kind: "unavailable"; readonly message: string };

/** How to get bubblewrap, for the messages below. */
export const BWRAP_INSTALL = "Debian/Ubuntu：apt-get install -y bubblewrap";

/** Decides the sandbox for `mode`: `bwrap` must work, `auto` falls back with a warning. */
export async function chooseSandbox(options: {
  readonly mode: SandboxMode;
  readonly workspace: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The platform, for tests; `process.platform` by default. */
  readonly platform?: NodeJS.Platform;
}): Promise<SandboxChoice> {
  if (options.mode === "none") return { kind: "none" };
  const platform = options.platform ?? process.platform;
  const probe =
    platform === "linux"
      ? await probeBwrap(
          await findOnPath(
            "bwrap",
            ((options.env ?? process.env).PATH ?? "").split(path.delimiter).filter(path.isAbsolute),
          ),
          options.workspace,
        )
      : { usable: false as const, reason: `bubblewrap 只支持 Linux（当前系统：${platform}）` };
  if (probe.usable) return { kind: "bwrap", bwrap: probe.path };
  if (options.mode === "bwrap") {
    return {
      kind: "unavailable",
      message: `--sandbox bwrap 无法使用：${probe.reason}。请安装 bubblewrap（${BWRAP_INSTALL}），或改用 --sandbox none`,
    };
  }
  return {
    kind: "none",
    warning: `警告：${probe.reason}；run_command 只受策略限制，没有系统沙箱（安装 bubblewrap 可启用：${BWRAP_INSTALL}）`,
  };
}
