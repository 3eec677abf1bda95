import { afterEach, describe, expect, it } from 'vitest'
import { record, startSolver } from '@solver-notifications/test-support'
import type { LifecycleEvent } from './Lifecycle.js'
import { type AppStateLike, type NetInfoLike, type NetInfoStateLike, reactNativeLifecycle } from './reactNativeLifecycle.js'

/** React Native's AppState and NetInfo as the app passes them, driven by the test. */
function fakes() {
  const app = new Set<(state: string) => void>()
  const net = new Set<(state: NetInfoStateLike) => void>()
  let current: NetInfoStateLike = { isConnected: true, type: 'wifi', details: { ssid: 'office', strength: 80 } }
  const AppState: AppStateLike = {
    addEventListener: (_type, listener) => {
      app.add(listener)
      return { remove: () => app.delete(listener) }
    },
  }
  const NetInfo: NetInfoLike = {
    addEventListener: (listener) => {
      net.add(listener)
      listener(current) // NetInfo answers with the current state at once
      return () => net.delete(listener)
    },
  }
  return {
    AppState,
    NetInfo,
    app: (state: string) => {
      for (const l of app) l(state)
    },
    net: (state: NetInfoStateLike) => {
      current = state
      for (const l of net) l(state)
    },
    listeners: () => app.size + net.size,
  }
}

describe('reactNativeLifecycle', () => {
  it('AppState active → foreground, else background; NetInfo offline, back, or another network while connected → online', () => {
    const f = fakes()
    const events: LifecycleEvent[] = []
    const stop = reactNativeLifecycle({ AppState: f.AppState, NetInfo: f.NetInfo }).subscribe((e) => events.push(e))
    expect(events).toEqual([]) // the current state is not news
    f.app('background')
    f.app('inactive')
    f.app('active')
    f.net({ isConnected: false, type: 'none', details: null })
    f.net({ isConnected: false, type: 'none', details: null })
    f.net({ isConnected: true, type: 'wifi', details: { ssid: 'office', strength: 80 } })
    f.net({ isConnected: true, type: 'wifi', details: { ssid: 'office', strength: 80 } }) // the same network
    f.net({ isConnected: true, type: 'cellular', details: { cellularGeneration: '5g' } }) // Wi-Fi → cellular, never offline
    f.net({ isConnected: null, type: 'unknown', details: null }) // not known yet
    f.net({ isConnected: true, type: 'wifi', details: { ssid: 'home' } })
    expect(events).toEqual(['background', 'background', 'foreground', 'offline', 'online', 'online', 'online'])
    stop()
    expect(f.listeners()).toBe(0)
  })

  it('a network is its type and identity, not its signal: 22 reports of one Wi-Fi with new strength and link speed, or {} then its details, are no change', () => {
    const f = fakes()
    const events: LifecycleEvent[] = []
    reactNativeLifecycle({ AppState: f.AppState, NetInfo: f.NetInfo }).subscribe((e) => events.push(e))
    const office = { ssid: 'office', bssid: 'aa:bb:cc:dd:ee:ff', ipAddress: '10.0.0.7', subnet: '255.255.255.0' }
    for (let i = 0; i < 22; i++) f.net({ isConnected: true, type: 'wifi', details: { ...office, strength: 40 + i, linkSpeed: 100 + 10 * i, frequency: i % 2 ? 2412 : 5180 } })
    expect(events).toEqual([])
    // netinfo #398: an empty details object first, then the details.
    f.net({ isConnected: false, type: 'none', details: null })
    f.net({ isConnected: true, type: 'wifi', details: {} })
    f.net({ isConnected: true, type: 'wifi', details: { ...office, strength: 99 } })
    f.net({ isConnected: true, type: 'wifi', details: { ...office, strength: 98, linkSpeed: 300 } })
    expect(events).toEqual(['offline', 'online'])
    // Another access point of the same name, or a new address, is another network.
    f.net({ isConnected: true, type: 'wifi', details: { ...office, bssid: '11:22:33:44:55:66' } })
    f.net({ isConnected: true, type: 'wifi', details: { ...office, bssid: '11:22:33:44:55:66', ipAddress: '10.0.0.9' } })
    // A cellular generation change is signal too; another carrier is another network.
    f.net({ isConnected: true, type: 'cellular', details: { carrier: 'A', cellularGeneration: '4g' } })
    f.net({ isConnected: true, type: 'cellular', details: { carrier: 'A', cellularGeneration: '5g' } })
    f.net({ isConnected: true, type: 'cellular', details: { carrier: 'B', cellularGeneration: '5g' } })
    expect(events).toEqual(['offline', 'online', 'online', 'online', 'online', 'online'])
  })
})

let stops: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(stops.map((s) => s()))
  stops = []
})

describe.each(['enigma', 'rasa'] as const)('%s: a network change in the foreground (sockets that cannot ping)', (protocol) => {
  it('replaces the socket at once and the resume stream recovers what the dead link lost', async () => {
    const f = fakes()
    // heartbeat: false is a socket that cannot ping, as React Native's.
    const { sim, make, stop } = await startSolver(protocol, {}, { lingerMs: 0, heartbeat: false, lifecycle: reactNativeLifecycle({ AppState: f.AppState, NetInfo: f.NetInfo }) })
    stops.push(stop)
    const account = '0xAbC0000000000000000000000000000000000001'
    const events = record(make().events({ account }, { resume: true }))
    const opens = () => events.values.filter((e) => e.type === 'status' && e.status === 'open' && !e.backfill).length
    await events.until(() => opens() === 1)
    await sim.waitForSubscribers(account)
    // The old network is gone without a close: nothing reaches the socket any more.
    sim.stall()
    const lost = (await sim.instantOpen(account)).frames
    sim.resume()
    const before = new Set(sim.connections().map((c) => c.id))
    f.net({ isConnected: true, type: 'cellular', details: { cellularGeneration: '5g' } })
    await events.until(() => opens() === 2)
    expect(sim.connections().some((c) => !before.has(c.id))).toBe(true)
    const recoverable = (protocol === 'enigma' ? lost : lost.slice(-1)).map((fr) => fr.id)
    await events.until((v) => recoverable.every((id) => v.some((e) => e.type === 'notification' && e.notification.id === id)))
    // One replacement (a backfill's report on the same status is not another one).
    const status = events.values.filter((e) => e.type === 'status' && e.status === 'reconnecting' && !e.backfill)
    expect(status.map((e) => e.type === 'status' && e.closeReason)).toEqual(['online: replacing a socket that may have died meanwhile'])
  })
})
