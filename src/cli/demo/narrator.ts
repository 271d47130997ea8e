import type { Clock } from "../../util/clock.js";
import type { Output } from "../plugin/context.js";

/**
 * How the demo talks: numbered steps, what it is about to do (with the command a user would
 * type), what it sees happen (stamped with the time since the demo started), and the
 * output of the plugin's commands, indented. Plain lines only, so a pipe or a CI log reads
 * the same as a terminal.
 */
export class Narrator {
  private step = 0;
  private readonly startedAt: number;

  constructor(
    private readonly out: Output,
    private readonly steps: number,
    private readonly clock: Clock,
  ) {
    this.startedAt = clock.now();
  }

  /** `== 2/7 Update the image and watch the rollout` */
  section(title: string): void {
    this.step += 1;
    this.out.write(`\n== ${this.step}/${this.steps} ${title}\n`);
  }

  /** Prose: why this step, what to look for. */
  say(text: string): void {
    this.out.write(`${text}\n`);
  }

  /** The command a user would type for what the demo does next. */
  command(text: string): void {
    this.out.write(`$ ${text}\n`);
  }

  /** Something observed in the cluster: `  [ 3.2s] web-2 Ready`. */
  observe(text: string): void {
    this.out.write(`  [${this.elapsed().padStart(5)}] ${text}\n`);
  }

  /** Seconds since the demo started, one decimal. */
  elapsed(): string {
    return `${((this.clock.now() - this.startedAt) / 1000).toFixed(1)}s`;
  }

  /** An Output that indents what a plugin command prints, so it stands apart from prose. */
  indented(): Output {
    let atLineStart = true;
    const out = this.out;
    return {
      isTTY: out.isTTY,
      columns: out.columns,
      write(text: string) {
        let result = "";
        for (const ch of text) {
          if (atLineStart && ch !== "\n") result += "    ";
          result += ch;
          atLineStart = ch === "\n";
        }
        out.write(result);
      },
    };
  }
}
