import type { LearnerContext, RunLabTargets } from "./learner-context.ts";
import { colorsFor } from "./terminal.ts";

/** How often the elapsed time of a long starter run is redrawn on a terminal. */
const TICK_MS = 1_000;

/** The lesson id of a starter target's label (`07:starter` → `07`). */
const lessonOf = (label: string): string => label.split(":")[0] ?? label;

/**
 * Lessons in the order a reader expects, from completions in any order: each completion
 * releases the lessons, in `ids` order, that have now all finished. Piped output stays the
 * same from run to run however the test workers interleave.
 */
export function releaseInOrder(ids: readonly string[]): (id: string) => string[] {
  const done = new Set<string>();
  let next = 0;
  return (id) => {
    done.add(id);
    const released: string[] = [];
    for (let current = ids[next]; current !== undefined && done.has(current); ) {
      released.push(current);
      next += 1;
      current = ids[next];
    }
    return released;
  };
}

/**
 * `run`, saying on `stderr` (stdout may be JSON) what it is waiting for: which lessons'
 * starters run and why, then each lesson as it finishes, then how long it took. A first
 * look after a clone runs every starter once (about a second each): that wait is shown,
 * not silent. On a terminal one line is redrawn with the count, the lesson just finished
 * and the seconds; elsewhere (a pipe, a log) a line per lesson, in lesson order.
 */
export function withStarterProgress(context: LearnerContext, run: RunLabTargets): RunLabTargets {
  return async (targets) => {
    const stderr = context.stderr;
    const colors = colorsFor(stderr, context.env);
    const ids = targets.map((target) => lessonOf(target.label));
    const total = ids.length;
    stderr.write(
      colors.dim(
        `正在运行 ${total} 课的 starter 测试（${ids.join("、")}）：第一次查看时每课都要跑一次，之后只重跑改动过的课……\n`,
      ),
    );
    const started = Date.now();
    const seconds = () => Math.round((Date.now() - started) / 1000);
    const terminal = stderr.isTTY === true;
    let finished = 0;
    let last: string | undefined;
    const redraw = () => {
      const lesson = last === undefined ? "" : `（刚跑完第 ${last} 课）`;
      stderr.write(
        `\r\u001b[K${colors.dim(`  已跑完 ${finished}/${total} 课${lesson} · 已用 ${seconds()} 秒`)}`,
      );
    };
    const release = releaseInOrder(ids);
    const onTargetDone = (label: string) => {
      const id = lessonOf(label);
      if (terminal) {
        finished += 1;
        last = id;
        redraw();
        return;
      }
      for (const lesson of release(id)) {
        finished += 1;
        stderr.write(colors.dim(`  已跑完 ${finished}/${total} 课（第 ${lesson} 课）\n`));
      }
    };
    const tick = terminal ? setInterval(redraw, TICK_MS) : undefined;
    try {
      return await run(targets, { onTargetDone });
    } finally {
      if (tick !== undefined) {
        clearInterval(tick);
        stderr.write("\r\u001b[K");
      }
      stderr.write(colors.dim(`测试跑完，用时 ${seconds()} 秒。\n`));
    }
  };
}
