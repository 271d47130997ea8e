/**
 * Runs a level-triggered pass soon after something changed: many store events coalesce
 * into one pass; a pass that causes writes schedules the next one itself.
 */
export class PassScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pass: () => void,
    private readonly onError: (err: unknown) => void,
    private readonly delayMs = 5,
  ) {}

  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (!this.timer) this.timer = setTimeout(() => this.run(), this.delayMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.timer = undefined;
    this.running = true;
    try {
      this.pass();
    } catch (e) {
      this.onError(e);
    } finally {
      this.running = false;
    }
    if (this.again) {
      this.again = false;
      this.poke();
    }
  }
}
