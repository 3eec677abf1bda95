// React Native from the tarballs: Metro bundles core and the React adapter (package exports on and
// off), the bundle has no `ws` and one copy of core, the `hermesc` that ships with react-native
// compiles it, and it runs in a context set up like React Native (a WHATWG WebSocket without pings,
// fetch, no DOM) against the simulator: a resume stream and a search on both protocols, and a
// network change from fake AppState/NetInfo through `reactNativeLifecycle` replacing a dead socket.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import vm from 'node:vm'
import { gzipSync } from 'node:zlib'
import Metro from 'metro'
import { startSolverSimulator } from '@solver-notifications/testkit'
import WS from 'ws'
import { check, until } from './checks.mjs'

const require = createRequire(import.meta.url)
const { getDefaultConfig } = require('@react-native/metro-config')
// 1. Metro, as an app's `react-native bundle` runs it (without React Native's own startup modules, which need the native side).
let bundle
for (const exportsOn of [true, false]) {
  const base = getDefaultConfig(process.cwd())
  const config = await Metro.loadConfig({}, { ...base, resolver: { ...base.resolver, unstable_enablePackageExports: exportsOn }, serializer: { ...base.serializer, getModulesRunBeforeMainModule: () => [], getPolyfills: () => [] }, reporter: { update() {} } })
  const out = `bundle-${exportsOn ? 'exports' : 'main-fields'}.js`
  await Metro.runBuild(config, { entry: './entry.js', out, platform: 'android', minify: true, dev: false })
  const code = readFileSync(out, 'utf8')
  const copies = code.split('solver-notifications.ServiceError').length - 1
  check(copies === 1, `package exports ${exportsOn ? 'on' : 'off'}: ${copies} copies of core in the bundle`)
  check(!/Sec-WebSocket-Key|permessage-deflate/.test(code), `package exports ${exportsOn ? 'on' : 'off'}: Node's ws is in the bundle`)
  console.log(`metro (package exports ${exportsOn ? 'on' : 'off'}): one copy of core, no ws; core + react adapter + react ${(code.length / 1024).toFixed(0)} KiB min, ${(gzipSync(code, { level: 9 }).length / 1024).toFixed(1)} KiB gzip`)
  bundle ??= { out, code }
}

{
  // What core alone costs under Metro, which does not tree-shake: core's react-native build (zod and ky
  // inside, tree-shaken), rxjs whole. At most 120 kB (117 KiB) gzip; `pnpm size` prints an esbuild stand-in (B6f).
  const base = getDefaultConfig(process.cwd())
  const config = await Metro.loadConfig({}, { ...base, serializer: { ...base.serializer, getModulesRunBeforeMainModule: () => [], getPolyfills: () => [] }, reporter: { update() {} } })
  await Metro.runBuild(config, { entry: './core-only.js', out: 'core-only.bundle.js', platform: 'android', minify: true, dev: false })
  const code = readFileSync('core-only.bundle.js', 'utf8')
  const gz = gzipSync(code, { level: 9 }).length / 1024
  check(gz <= 117, `metro, core alone: ${gz.toFixed(1)} KiB gzip, over 117 KiB (120 kB)`)
  check(!/Ungültige Eingabe|toJSONSchema/.test(code), "metro, core alone: zod's locales or JSON-schema code are in the bundle")
  console.log(`metro, core alone: ${(code.length / 1024).toFixed(0)} KiB min, ${gz.toFixed(1)} KiB gzip (at most 117 KiB, i.e. 120 kB)`)
}

// 2. Hermes: the compiler that ships with react-native compiles the bundle to bytecode.
const hermesc = require.resolve('react-native/package.json').replace(/package\.json$/, 'sdks/hermesc/linux64-bin/hermesc')
try {
  // Its warnings (globals it does not know, such as navigator) are noise here: only failing counts.
  execFileSync(hermesc, ['-emit-binary', '-O', '-w', '-out', 'bundle.hbc', bundle.out], { stdio: 'pipe' })
} catch (error) {
  console.error(String(error.stderr ?? error).slice(0, 4000))
  check(false, 'hermesc could not compile the bundle')
}
console.log('hermesc: the bundle compiles to Hermes bytecode')

// 3. Run it where globals are React Native's: a WebSocket without pings, fetch, timers, no DOM.
class ReactNativeWebSocket {
  static instances = 0
  constructor(url) {
    ReactNativeWebSocket.instances++
    const ws = new WS(url)
    this.ws = ws
    this.onopen = this.onmessage = this.onclose = this.onerror = null
    ws.onopen = () => this.onopen?.({})
    ws.onmessage = (e) => this.onmessage?.({ data: e.data })
    ws.onclose = (e) => this.onclose?.({ code: e.code, reason: e.reason })
    ws.onerror = (e) => this.onerror?.({ message: e.message })
  }
  get readyState() {
    return this.ws.readyState
  }
  send(data) {
    this.ws.send(data)
  }
  close(code, reason) {
    this.ws.close(code, reason)
  }
}
const context = vm.createContext({ WebSocket: ReactNativeWebSocket, fetch, Headers, Request, Response, AbortController, AbortSignal, DOMException, TextEncoder, TextDecoder, URL, URLSearchParams, setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, console, navigator: { product: 'ReactNative' } })
vm.runInContext('globalThis.global = globalThis', context)
vm.runInContext(bundle.code, context)
const lib = vm.runInContext('globalThis.solverNotifications', context)
check(lib.adapter === true, 'the React adapter loads')

const account = '0xAbC0000000000000000000000000000000000001'
const sims = { enigma: await startSolverSimulator({ protocol: 'enigma' }), rasa: await startSolverSimulator({ protocol: 'rasa' }) }
// Fake AppState and NetInfo, driven from here.
let netListener
const NetInfo = {
  addEventListener(listener) {
    netListener = listener
    listener({ isConnected: true, type: 'wifi', details: { ssid: 'home' } })
    return () => {}
  },
}
const AppState = { addEventListener: () => ({ remove() {} }) }
const config = lib.createConfig({
  defaultChainId: 1,
  chains: {
    1: {
      defaultSolver: 'beta',
      solvers: {
        alpha: { notifications: { protocol: 'enigma', url: sims.enigma.wsUrl, channel: sims.enigma.channel, searchUrl: sims.enigma.searchUrl } },
        beta: { url: sims.rasa.httpUrl, notifications: { protocol: 'rasa', url: sims.rasa.wsUrl } },
      },
    },
  },
})
const client = lib.createNotificationsClient({ config, lifecycle: lib.reactNativeLifecycle({ AppState, NetInfo }) })
try {
  for (const [protocol, solverId] of [['enigma', 'alpha'], ['rasa', 'beta']]) {
    const sim = sims[protocol]
    const seen = []
    const subscription = client.notifications({ account, solverId }, { resume: true }).subscribe((n) => seen.push(n.id))
    await sim.waitForSubscribers(account)
    const first = await sim.instantOpen(account)
    await until(`${protocol}: the first lifecycle`, () => seen.length === first.frames.length)
    // The link dies silently (no close: React Native cannot ping), then the phone moves to cellular.
    sim.stall()
    const missed = await sim.instantOpen(account) // stored, sent to nobody
    sim.resume()
    const dials = ReactNativeWebSocket.instances
    // Another network than the last one (Wi-Fi to cellular, then another carrier: a network is its type
    // and identity — ssid, bssid, IP address, subnet, carrier — never its signal or cell).
    netListener({ isConnected: true, type: 'cellular', details: { carrier: `carrier-${protocol}`, cellularGeneration: '5g' } })
    await until(`${protocol}: a new socket after the network change`, () => ReactNativeWebSocket.instances > dials)
    const expected = protocol === 'enigma' ? first.frames.length + missed.frames.length : first.frames.length + 1
    await until(`${protocol}: what the dead socket missed, by backfill`, () => seen.length >= expected)
    const page = await client.search({ account, solverId })
    check(page.kind === protocol && page.rows.length > 0, `${protocol}: search`)
    subscription.unsubscribe()
    console.log(`react native context, ${protocol}: resume stream, a network change replaced the dead socket and backfilled ${expected - first.frames.length}, search: ok`)
  }
} finally {
  client.close()
  await Promise.all(Object.values(sims).map((s) => s.close()))
}
