/**
 * The Web Locks API for one lock name, in process, for tests of tabs that Node runs side by side:
 * FIFO queue, `signal` to leave the queue, `steal` to take the lock (the holder's request rejects).
 */
export class FakeLocks {
  private holder: Request | undefined
  private readonly queue: Request[] = []

  request(_name: string, options: { steal?: boolean; signal?: AbortSignal }, callback: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const req: Request = { callback, resolve, reject }
      if (options.steal) {
        const old = this.holder
        this.holder = undefined
        old?.reject(new DOMException('The lock was stolen', 'AbortError'))
        this.grant(req)
        return
      }
      options.signal?.addEventListener('abort', () => {
        const at = this.queue.indexOf(req)
        if (at === -1) return
        this.queue.splice(at, 1)
        reject(new DOMException('aborted', 'AbortError'))
      })
      if (this.holder) this.queue.push(req)
      else this.grant(req)
    })
  }

  /** The tab holding the lock crashes: its lock is released without its callback ending. */
  crashHolder(): void {
    this.holder = undefined
    this.next()
  }

  private grant(req: Request): void {
    this.holder = req
    Promise.resolve(req.callback()).then(
      () => {
        if (this.holder !== req) return
        this.holder = undefined
        req.resolve()
        this.next()
      },
      () => {},
    )
  }

  private next(): void {
    const req = this.queue.shift()
    if (req) this.grant(req)
  }
}

interface Request {
  callback: () => Promise<void>
  resolve: () => void
  reject: (error: unknown) => void
}
