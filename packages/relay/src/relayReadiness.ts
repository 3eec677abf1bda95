import type { Readiness } from './opsServer.js'

/** What readiness looks at. */
export interface ReadinessDeps {
  streamName: string
  /** asks the stream and the relay's buckets; rejects when one does not answer */
  probe: () => Promise<unknown>
  /** `natsRefused`: why NATS refused the credentials at the last reconnect, while it does */
  /** `denied`: operations NATS denies the relay's user (it withdrew) */
  state: () => { natsConnected: boolean; natsRefused?: string | undefined; denied?: readonly string[] | undefined; joined: boolean; draining: boolean }
}

/**
 * A relay's `ready()`: NATS connected, stream and buckets reachable, joined, not draining — with the reason
 * when not. The stream and buckets are asked at most every 2 s (`/readyz` polled every second costs one
 * request per 2 s), and an answer later than 2 s counts as none.
 *
 * @example
 * const ready = relayReadiness({ streamName, probe, state })
 * const { ready: ok, reason } = await ready()
 */
export function relayReadiness(deps: ReadinessDeps): () => Promise<Readiness> {
  let storageCheck: { at: number; ok: Promise<boolean> } | undefined
  const storageReachable = (): Promise<boolean> => {
    if (!storageCheck || Date.now() - storageCheck.at > 2_000) {
      const deadline = new Promise<boolean>((resolve) => setTimeout(resolve, 2_000, false).unref())
      const probe = deps.probe().then(
        () => true,
        () => false,
      )
      storageCheck = { at: Date.now(), ok: Promise.race([probe, deadline]) }
    }
    return storageCheck.ok
  }
  return async () => {
    const { natsConnected, natsRefused, denied = [], joined, draining } = deps.state()
    const storage = natsConnected && !draining ? await storageReachable() : false
    const checks = { nats: natsConnected, storage, joined, draining }
    const reason = draining
      ? 'draining: handing accounts over before exit'
      : denied.length > 0
        ? `NATS denies this relay's user permission to ${denied.join(', ')}: withdrawn, its partitions go to the other relays (grant the permission and restart it)`
      : !natsConnected
        ? natsRefused !== undefined
          ? `NATS refuses the credentials (${natsRefused}); reconnecting until it takes them`
          : 'NATS is disconnected (reconnecting)'
        : !storage
          ? `the stream ${deps.streamName} or the relay's KV buckets do not answer`
          : !joined
            ? 'not joined yet (no heartbeat written)'
            : undefined
    return { ready: reason === undefined, reason, checks }
  }
}
