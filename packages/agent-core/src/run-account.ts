import { formatUsd } from "./cost.ts";
import { RunAccountError } from "./errors.ts";
import type { GuardVerdict, Limits } from "./loop-guard.ts";

/** What a run spent, or was charged, as its budgets count it. */
export interface RunSpend {
  /** Model calls that returned a valid action. */
  readonly steps: number;
  /** Tools that really ran. */
  readonly toolCalls: number;
  /** Input plus output tokens. */
  readonly tokens: number;
  /** USD (an unknown cost counts as 0). */
  readonly costUsd: number;
}

/**
 * The one account of a run's spending (`RunOptions.account`): what the run's own loop spent
 * (its guard's counts and its cost) and what was spent for it outside the loop and charged
 * here (a subagent's run, say). The run counts both against every budget: before each model
 * call its steps, tokens and cost, before each tool call its tool calls — its own first, with
 * the guard's reasons; then its own plus the charged part, a stop then naming that part
 * (`已用 6 步（其中子 Agent 4 步），达到预算 6`). One account belongs to one run.
 */
export interface RunAccount {
  /** Names the charged part in a stop reason: "子 Agent" gives `（其中子 Agent 4 步）`. */
  readonly chargedAs: string;
  /**
   * Adds spending made for the run outside its loop; a field left out adds nothing. Steps,
   * tool calls and tokens are integers ≥ 0, the cost a finite number ≥ 0; anything else
   * throws `RunAccountError` and charges nothing. Counted from the run's next check on.
   */
  charge(spend: Partial<RunSpend>): void;
  /** Everything charged so far. */
  charged(): RunSpend;
  /**
   * The run's own spending so far: its guard's steps, tool calls and tokens and its model
   * calls' cost, read now; all zero until the run has started (and as it ended, after).
   */
  own(): RunSpend;
}

/** Options for `createRunAccount`. */
export interface RunAccountOptions {
  /** The word for the charged part in a stop reason (see `RunAccount.chargedAs`). */
  readonly chargedAs: string;
}

/** The run an account belongs to, as the account reads it (a `Run` is one). */
export interface AccountedRun {
  readonly guard: { readonly steps: number; readonly toolCalls: number; readonly tokens: number };
  readonly costUsd: number;
  /** The limits the guard enforces. */
  readonly limits: Limits;
  readonly maxCostUsd: number | undefined;
}

/** The run's side of its account: the checks its loop asks after its own budgets. */
export interface RunLedger {
  /** Before a model call: own plus charged steps, tokens, then cost. */
  beforeModelCall(): GuardVerdict;
  /** Before a tool call: own plus charged tool calls. */
  beforeToolCall(): GuardVerdict;
  /** Makes `run` the account's run: its own spending is read from it from now on. */
  bind(run: AccountedRun): void;
}

const NOTHING: RunSpend = Object.freeze({ steps: 0, toolCalls: 0, tokens: 0, costUsd: 0 });
const CONTINUE: GuardVerdict = Object.freeze({ stop: false });

/** Creates an account for one run; give it to `runAgent` as `RunOptions.account`. */
export function createRunAccount(options: RunAccountOptions): RunAccount {
  const chargedAs: unknown = options?.chargedAs;
  if (typeof chargedAs !== "string" || chargedAs.trim() === "") {
    throw new RunAccountError(
      `createRunAccount: chargedAs must be a non-empty word, got ${String(chargedAs)}`,
    );
  }
  const ledger = new Ledger(chargedAs);
  const account: RunAccount = Object.freeze({
    chargedAs,
    charge: (spend: Partial<RunSpend>) => ledger.charge(spend),
    charged: () => ledger.charged(),
    own: () => ledger.own(),
  });
  ledgers.set(account, ledger);
  return account;
}

/** Each account's ledger, by the account `createRunAccount` handed out. */
const ledgers = new WeakMap<RunAccount, Ledger>();

/**
 * The ledger of the account a run was given, taken for that run: throws `RunAccountError`
 * for an account `createRunAccount` did not make, or one another run took already.
 */
export function takeAccount(account: RunAccount | undefined): RunLedger | undefined {
  if (account === undefined) return undefined;
  const ledger = ledgers.get(account);
  if (ledger === undefined) {
    throw new RunAccountError("invalid options: account must be made by createRunAccount");
  }
  if (ledger.taken) {
    throw new RunAccountError(
      "invalid options: this account belongs to another run already; create one account per run",
    );
  }
  ledger.taken = true;
  return ledger;
}

/** The charged totals and the run they are counted with. A class: its checks run per step. */
class Ledger implements RunLedger {
  readonly #word: string;
  #steps = 0;
  #toolCalls = 0;
  #tokens = 0;
  #costUsd = 0;
  #run: AccountedRun | undefined = undefined;
  taken = false;

  constructor(word: string) {
    this.#word = word;
  }

  charge(spend: Partial<RunSpend>): void {
    if (typeof spend !== "object" || spend === null) {
      throw new RunAccountError(`charge: spend must be an object, got ${String(spend)}`);
    }
    // Every amount is checked before any is added: a bad charge adds nothing.
    const steps = amount(spend.steps, "steps", true);
    const toolCalls = amount(spend.toolCalls, "toolCalls", true);
    const tokens = amount(spend.tokens, "tokens", true);
    const costUsd = amount(spend.costUsd, "costUsd", false);
    this.#steps += steps;
    this.#toolCalls += toolCalls;
    this.#tokens += tokens;
    this.#costUsd += costUsd;
  }

  charged(): RunSpend {
    return {
      steps: this.#steps,
      toolCalls: this.#toolCalls,
      tokens: this.#tokens,
      costUsd: this.#costUsd,
    };
  }

  own(): RunSpend {
    const run = this.#run;
    if (run === undefined) return NOTHING;
    const { guard } = run;
    return {
      steps: guard.steps,
      toolCalls: guard.toolCalls,
      tokens: guard.tokens,
      costUsd: run.costUsd,
    };
  }

  bind(run: AccountedRun): void {
    this.#run = run;
  }

  beforeModelCall(): GuardVerdict {
    const run = this.#run;
    // Own plus nothing charged is own, which the run's own checks passed just before.
    if (run === undefined) return CONTINUE;
    const { limits, guard } = run;
    const word = this.#word;
    const steps = guard.steps + this.#steps;
    if (this.#steps > 0 && steps >= limits.maxSteps) {
      const reason = `已用 ${steps} 步（其中${word} ${this.#steps} 步），达到预算 ${limits.maxSteps}`;
      return stop("max_steps", reason);
    }
    const tokens = guard.tokens + this.#tokens;
    if (this.#tokens > 0 && limits.maxTokens !== undefined && tokens >= limits.maxTokens) {
      const reason = `已用 ${tokens} 个 token（其中${word} ${this.#tokens} 个），达到预算 ${limits.maxTokens}`;
      return stop("max_tokens", reason);
    }
    const max = run.maxCostUsd;
    const cost = run.costUsd + this.#costUsd;
    if (this.#costUsd > 0 && max !== undefined && cost >= max) {
      // Dollars as the run's own cost stop prints them (`checkCost`): 0.1 + 0.2 is $0.3000.
      const reason = `已花费 ${formatUsd(cost)}（其中${word} ${formatUsd(this.#costUsd)}），达到成本预算 ${formatUsd(max)}`;
      return stop("max_cost", reason);
    }
    return CONTINUE;
  }

  beforeToolCall(): GuardVerdict {
    const run = this.#run;
    const max = run?.limits.maxToolCalls;
    if (run === undefined || max === undefined || this.#toolCalls === 0) return CONTINUE;
    const calls = run.guard.toolCalls + this.#toolCalls;
    if (calls < max) return CONTINUE;
    const reason = `已执行 ${calls} 次工具（其中${this.#word} ${this.#toolCalls} 次），达到预算 ${max}`;
    return stop("max_tool_calls", reason);
  }
}

/** One amount of a charge: 0 when left out; else a count (an integer) or a cost, ≥ 0. */
function amount(value: unknown, name: keyof RunSpend, count: boolean): number {
  if (value === undefined) return 0;
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    value >= 0 &&
    (!count || Number.isSafeInteger(value));
  if (ok) return value;
  const wanted = count ? "an integer ≥ 0" : "a finite number ≥ 0";
  throw new RunAccountError(`charge: ${name} must be ${wanted}, got ${String(value)}`);
}

function stop(code: "max_steps" | "max_tokens" | "max_cost" | "max_tool_calls", reason: string) {
  return { stop: true, code, reason } as const;
}
