/**
 * The Web Locks API in process, for tests of tabs that Node runs side by side: one manager shared by
 * every tab, each tab with its own client id (`forClient()`), locks by name with a FIFO queue,
 * `signal` to leave the queue, `steal` to take a lock (the holder's request rejects), and `query()`
 * listing what is held with the holder's client id, as browsers answer it.
 */
export class FakeLocks {
  private readonly locks = new Map<string, { holder: Request | undefined; queue: Request[] }>()
  private clients = 0

  /** The API as one tab sees it. */
  forClient() {
    const clientId = `client-${++this.clients}`
    return {
      request: (name: string, options: { steal?: boolean; signal?: AbortSignal }, callback: () => Promise<void>) => this.request(name, options, callback, clientId),
      query: () => this.query(),
    }
  }

  request(name: string, options: { steal?: boolean; signal?: AbortSignal }, callback: () => Promise<void>, clientId = 'client-0'): Promise<void> {
    const lock = this.lock(name)
    return new Promise<void>((resolve, reject) => {
      const req: Request = { name, clientId, callback, resolve, reject }
      if (options.steal) {
        const old = lock.holder
        lock.holder = undefined
        old?.reject(new DOMException('The lock was stolen', 'AbortError'))
        this.grant(req)
        return
      }
      options.signal?.addEventListener('abort', () => {
        const at = lock.queue.indexOf(req)
        if (at === -1) return
        lock.queue.splice(at, 1)
        reject(new DOMException('aborted', 'AbortError'))
      })
      if (lock.holder) lock.queue.push(req)
      else this.grant(req)
    })
  }

  query(): Promise<{ held: Array<{ name: string; clientId: string; mode: 'exclusive' }>; pending: Array<{ name: string; clientId: string; mode: 'exclusive' }> }> {
    const held = [...this.locks.values()].flatMap((l) => (l.holder ? [{ name: l.holder.name, clientId: l.holder.clientId, mode: 'exclusive' as const }] : []))
    const pending = [...this.locks.values()].flatMap((l) => l.queue.map((r) => ({ name: r.name, clientId: r.clientId, mode: 'exclusive' as const })))
    return Promise.resolve({ held, pending })
  }

  /** The tab holding the first lock ever requested crashes: every lock of its client is released without its callback ending. */
  crashHolder(): void {
    const main = this.locks.values().next().value?.holder
    if (!main) return
    for (const lock of this.locks.values()) {
      if (lock.holder?.clientId !== main.clientId) continue
      lock.holder = undefined
      this.next(lock)
    }
  }

  private lock(name: string) {
    let lock = this.locks.get(name)
    if (!lock) {
      lock = { holder: undefined, queue: [] }
      this.locks.set(name, lock)
    }
    return lock
  }

  private grant(req: Request): void {
    const lock = this.lock(req.name)
    lock.holder = req
    Promise.resolve(req.callback()).then(
      () => {
        if (lock.holder !== req) return
        lock.holder = undefined
        req.resolve()
        this.next(lock)
      },
      () => {},
    )
  }

  private next(lock: { holder: Request | undefined; queue: Request[] }): void {
    const req = lock.queue.shift()
    if (req) this.grant(req)
  }
}

interface Request {
  name: string
  clientId: string
  callback: () => Promise<void>
  resolve: () => void
  reject: (error: unknown) => void
}
