// Loaded first by every root script (`node --import @bootcamp/lab-kit/require-node …`) and by
// the `lab-test` bin. Plain JavaScript on purpose: it must run on any Node, so that a learner
// on a Node too old to run this repository's TypeScript reads why, not a loader's stack.

/** The oldest Node that runs `.ts` files itself (type stripping without a flag). */
const MINIMUM = [22, 18];

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1])) {
  process.stderr.write(
    `本仓库需要 Node.js ≥ ${MINIMUM.join(".")}（推荐 24 LTS），当前是 ${process.version}。\n` +
      "请先升级 Node.js（例如 `nvm install 24`，或从 https://nodejs.org 安装 24 LTS），再重新运行 pnpm install 和这条命令。\n",
  );
  process.exit(1);
}

// Node keeps the compiled (and type-stripped) modules of each start on disk, keyed by their
// content, so the next command skips that work: about half the CPU of a learner command's
// start (`pnpm lesson hint 99`: 0.95 -> 0.5 CPU-s measured on Node 24). Worker threads and
// child processes (vitest's workers, the verifier's test process) use it only through the
// environment variable, which `enableCompileCache` does not set.
const { enableCompileCache } = await import("node:module");
const cache = enableCompileCache?.();
if (cache?.directory !== undefined) process.env.NODE_COMPILE_CACHE ??= cache.directory;
