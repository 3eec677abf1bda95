import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { startRemoteSimulator } from '../../core/bench/remoteSimulator.js'
import { solversConfig } from '../test/cluster.js'
import type { startNats } from '../test/natsServer.js'
import { accountKey } from '../src/accountKeys.js'
import { storedKey } from '../src/deployment.js'
import { ACCOUNTS_BUCKET } from '../src/relayStorage.js'
import { startRelay } from '../src/startRelay.js'

const RASA = Number(process.env.RELAY_HEAP_RASA ?? 5_000)
const ENIGMA = Number(process.env.RELAY_HEAP_ENIGMA ?? 500)
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const address = (i: number) => `0x${(0x4ea9000 + i).toString(16).padStart(40, '0')}`

async function until(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`heap bench: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * HEAP per owned account: one relay in this process (the simulators in their own), rasa accounts
 * then enigma accounts added, each group measured after forced GC once every account is subscribed:
 * the relay's and the client's own memory per account (sockets' native buffers are not on the heap).
 * Targets: ≤ 2 KiB per rasa account, ≤ 8 KiB per enigma account.
 */
export async function heapPerAccountBench(nats: Awaited<ReturnType<typeof startNats>>): Promise<boolean> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) {
    console.log('RELAY heap: run with node --expose-gc')
    return true
  }
  // Collected, then what finalization registries free once they ran (fetch's per-request abort wiring
  // is let go by one, a task after the collection), then collected again.
  const heap = async () => {
    for (let i = 0; i < 3; i++) {
      gc()
      await new Promise((r) => setTimeout(r, 100))
    }
    gc()
    return process.memoryUsage().heapUsed
  }
  const [enigma, rasa] = await Promise.all([startRemoteSimulator('enigma'), startRemoteSimulator('rasa')])
  const config = solversConfig(enigma, rasa)
  const relay = await startRelay({ config, nats: { servers: nats.url }, instanceId: 'heap', partitions: 256 })
  const nc = await connect({ servers: nats.url })
  const accounts = await new Kvm(nc).create(ACCOUNTS_BUCKET, { history: 1 })
  const add = async (keys: string[]) => {
    for (let i = 0; i < keys.length; i += 1_000) await Promise.all(keys.slice(i, i + 1_000).map((k) => accounts.put(storedKey(k, 256), '{}')))
  }
  const settle = async (total: number, addresses: string[], sim: typeof rasa) => {
    await until(() => relay.owned().length === total, `${fmt(total)} accounts owned`)
    await sim.waitForSubscribers(addresses)
    // The first backfills and checkpoints are done: wait for the relay to go quiet, and its heap to
    // settle (what the first backfills left behind collected).
    await until(() => relay.stats().pending === 0, 'no publish pending')
    let last = await heap()
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 2_000))
      const now = await heap()
      const steady = Math.abs(now - last) < last * 0.01
      last = now
      if (steady) break
    }
  }
  // Each kind is measured as a slope: a fifth of its accounts first (what is made once — compiled
  // code, hub sockets, the partitions' records — comes with them), then the rest, per account.
  const rasaAddresses = Array.from({ length: RASA }, (_, i) => address(i))
  const enigmaAddresses = Array.from({ length: ENIGMA }, (_, i) => address(100_000 + i))
  const rasaFirst = Math.floor(RASA / 5)
  const enigmaFirst = Math.floor(ENIGMA / 5)
  await add(rasaAddresses.slice(0, rasaFirst).map((a) => accountKey(1, 'beta', a)))
  await settle(rasaFirst, rasaAddresses.slice(0, rasaFirst), rasa)
  const rasaBase = await heap()
  await add(rasaAddresses.slice(rasaFirst).map((a) => accountKey(1, 'beta', a)))
  await settle(RASA, rasaAddresses, rasa)
  const afterRasa = await heap()
  await add(enigmaAddresses.slice(0, enigmaFirst).map((a) => accountKey(1, 'alpha', a)))
  await settle(RASA + enigmaFirst, enigmaAddresses.slice(0, enigmaFirst), enigma)
  const enigmaBase = await heap()
  await add(enigmaAddresses.slice(enigmaFirst).map((a) => accountKey(1, 'alpha', a)))
  await settle(RASA + ENIGMA, enigmaAddresses, enigma)
  const afterEnigma = await heap()
  const perRasa = (afterRasa - rasaBase) / (RASA - rasaFirst)
  const perEnigma = (afterEnigma - enigmaBase) / (ENIGMA - enigmaFirst)
  const pass = perRasa <= 2 * 1024 && perEnigma <= 8 * 1024
  console.log(
    `RELAY heap per owned account after GC: rasa ${(perRasa / 1024).toFixed(2)} KiB (${fmt(RASA)} accounts; target ≤ 2 KiB ${perRasa <= 2048 ? 'PASS' : 'MISS'}), enigma ${(perEnigma / 1024).toFixed(2)} KiB (${fmt(ENIGMA)}; target ≤ 8 KiB ${perEnigma <= 8192 ? 'PASS' : 'MISS'})`,
  )
  await relay.close()
  await nc.close()
  await Promise.all([enigma.close(), rasa.close()])
  return pass
}
