import type { HintSelection, Regression, TestIntent } from "./hints.ts";
import { describeOutsideEdit } from "./outside-edits.ts";

/** The command that shows the answer, said as such: nothing points at it unlabelled. */
export function answerCommand(lessonId: string): string {
  return `pnpm lesson diff ${lessonId}（会显示参考答案，运行前先问你确认）`;
}

/** What a test checks and the mistakes known to break it, as indented lines. */
export function intentLines(intent: TestIntent): string[] {
  const lines = intent.checks.map((check) => `它检查的是：${check}`);
  if (intent.mistakes.length > 0) {
    lines.push("本课列出的、会让它失败的常见错误：");
    lines.push(...intent.mistakes.map((mistake) => `  - ${mistake}`));
  }
  return lines;
}

/** Why a test the pristine starter passed fails now, before any hint for it. */
export function regressionLines(regression: Regression): string[] {
  switch (regression.where) {
    case "outside":
      return [
        "这个测试不是本课的练习：初始 starter 里它是通过的。你在练习区域（// #region exercise 到 // #endregion exercise）之外改了代码：",
        ...regression.edits.map((edit) => `  ${describeOutsideEdit(edit)}`),
        "先看这些改动是不是弄坏了它：git diff -- <文件> 只显示你自己的改动，不含答案；把区域外的行改回原样再试。",
      ];
    case "inside":
      return [
        "这个测试在初始 starter 里碰巧是通过的，现在失败了。练习区域之外你没有改动，所以是你在练习区域里写的代码改变了它要求的行为。",
      ];
    case "unknown":
      return [
        "这个测试在初始 starter 里是通过的，现在失败了。找不到提交的 starter 来比较，无法判断改动在练习区域里还是区域外；先看你最近改了哪里。",
      ];
    default: {
      const unknown: never = regression;
      return unknown;
    }
  }
}

/**
 * The known mistakes that fail an exercise test, once the learner has written code: the
 * hint follows the first red test, and these name what the learner's code may have broken.
 */
export function mistakeLines(selection: HintSelection, edited: boolean): string[] {
  if (!edited || (selection.kind !== "next" && selection.kind !== "exhausted")) return [];
  if (selection.regression !== undefined || selection.intent.mistakes.length === 0) return [];
  return [
    "你已经写了代码；本课列出的、会让这个测试失败的常见错误，对照看看是不是其中一种：",
    ...selection.intent.mistakes.map((mistake) => `  - ${mistake}`),
  ];
}

/**
 * The lines that explain a selection which is not a plain next hint: the outside edits,
 * or what a test checks when no hint is written for it. Empty for the other kinds.
 */
export function diagnosisLines(selection: HintSelection, lessonId: string): string[] {
  if (selection.kind === "outside_edit") {
    return regressionLines({ where: "outside", edits: selection.edits });
  }
  if (selection.kind === "no_hint") {
    const lead =
      selection.regression === undefined
        ? ["这个测试还没有写提示。"]
        : regressionLines(selection.regression);
    const tail = selection.isExercise
      ? [`对照失败信息回到练习区域里检查；实在想看答案：${answerCommand(lessonId)}`]
      : ["对照失败信息，回到练习区域里检查上面这一点。"];
    return [...lead, ...intentLines(selection.intent), ...tail];
  }
  if ((selection.kind === "next" || selection.kind === "exhausted") && selection.regression) {
    return [...regressionLines(selection.regression), ...intentLines(selection.intent)];
  }
  return [];
}
