/**
 * Runs jobs over keys a bounded number at a time (5,000 accounts must not open 5,000 requests at
 * once), and never two jobs on the same key at once.
 */
export class WorkerPool {
  private readonly busy = new Set<string>()

  constructor(
    private readonly concurrency: number,
    private readonly stopped: () => boolean,
  ) {}

  async run(keys: readonly string[], job: (key: string) => Promise<void>): Promise<void> {
    let next = 0
    const worker = async () => {
      while (next < keys.length && !this.stopped()) {
        const key = keys[next++]!
        if (this.busy.has(key)) continue
        this.busy.add(key)
        try {
          await job(key)
        } finally {
          this.busy.delete(key)
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(this.concurrency, keys.length) }, worker))
  }
}
