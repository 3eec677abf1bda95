import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import * as core from './index.js'
import * as query from './query/index.js'

const src = dirname(fileURLToPath(import.meta.url))

/**
 * The layers, bottom first; a folder may import from its own layer's folders only when listed
 * together, and from every layer below. transport and search are siblings: neither knows the other.
 */
const LAYERS: string[][] = [['errors'], ['utils'], ['protocol'], ['config'], ['transport', 'search'], ['stream'], ['quotes'], ['client'], ['observers', 'query']]
const layerOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder))

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : []
  })
}

it('every import points down the layers (type imports included)', () => {
  const wrong: string[] = []
  for (const file of sources(src)) {
    const folder = relative(src, file).split('/')[0]!
    if (folder === 'index.ts' || folder === 'internal.ts') continue
    const mine = layerOf(folder)
    expect(mine, `${folder} is in no layer`).toBeGreaterThanOrEqual(0)
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const targetFolder = relative(src, resolve(dirname(file), target!)).split('/')[0]!
      if (targetFolder === folder) continue
      const theirs = layerOf(targetFolder)
      const sameLayerSibling = theirs === mine
      if (theirs > mine || sameLayerSibling) wrong.push(`${relative(src, file)} imports ${target}`)
    }
  }
  expect(wrong).toEqual([])
})

it('pins the public exports, so the surface changes only on purpose', () => {
  expect(Object.keys(core).sort()).toMatchInlineSnapshot(`
    [
      "DEFAULT_MAX_FRAME_BYTES",
      "NotificationsObserver",
      "QuotesObserver",
      "ServiceError",
      "ServiceRequestError",
      "browserLifecycle",
      "buildEnigmaSubscribeFrame",
      "buildRasaSubscribeFrame",
      "classifyNotification",
      "classifyPhase",
      "contentKey",
      "createConfig",
      "createNotificationsClient",
      "createStreamClient",
      "formatNotification",
      "isAddress",
      "isSameNotification",
      "isServiceError",
      "isServiceRequestError",
      "isSolverId",
      "memoryCheckpoints",
      "normalizeNotification",
      "notificationKey",
      "parseNotificationFrame",
      "reactNativeLifecycle",
      "redactUrl",
      "searchNotifications",
      "searchPages",
      "toAddress",
      "toNotification",
      "webStorageCheckpoints",
    ]
  `)
  expect(Object.keys(query).sort()).toMatchInlineSnapshot(`
    [
      "searchNotificationsInfiniteQueryOptions",
      "searchNotificationsQueryKey",
      "searchNotificationsQueryOptions",
    ]
  `)
})

it('no protocol is named in shipped code outside protocol/ (core) or protocols/ (testkit): everything else asks the registry', () => {
  const named: string[] = []
  const scan = (root: string, home: string) => {
    for (const file of sources(root)) {
      if (relative(root, file).startsWith(`${home}/`)) continue
      // Comments may name protocols (examples in JSDoc); code may not.
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '')
      for (const [literal] of code.matchAll(/(['"`])(enigma|rasa)\1/g)) named.push(`${relative(join(root, '..', '..'), file)}: ${literal}`)
    }
  }
  scan(src, 'protocol')
  scan(resolve(src, '../../testkit/src'), 'protocols')
  expect(named).toEqual([])
})

/** The files a source file imports (type imports included), as paths relative to src. */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map(([, target]) => relative(src, resolve(dirname(file), target!)).replace(/\.js$/, '.ts'))
}

it('no import circle, type imports included: a protocol module never imports the registry that lists it', () => {
  const graph = new Map(sources(src).map((file) => [relative(src, file), importsOf(file)]))
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].join(' → '))
      return
    }
    state.set(file, 'open')
    for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file])
    state.set(file, 'done')
  }
  for (const file of graph.keys()) visit(file, [])
  expect(cycles).toEqual([])
})

it("no code outside a protocol's own folder reads that protocol's wire: envelope ids and sentinels stay in protocol/<name>/", () => {
  const wireOnly = /primary_identifier|secondary_identifier|primaryIdentifier|secondaryIdentifier|app_name|channel_patterns/
  const leaks = sources(src)
    .map((file) => relative(src, file))
    .filter((file) => !/^protocol\/[^/]+\//.test(file) && wireOnly.test(readFileSync(join(src, file), 'utf8').replace(/\/\*\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
  expect(leaks).toEqual([])
})

it("each protocol's own fields and sentinel are read by its codec only: no raw order_type outside protocol/<name>/, no normalized orderType outside protocol/, enigma's version/va_address/failure_message not in the shared normalizer, no 'number 0 is no value' there", () => {
  const strip = (file: string) => readFileSync(join(src, file), 'utf8').replace(/\/\*\*[\s\S]*?\*\/|\/\/.*$/gm, '')
  const files = sources(src).map((file) => relative(src, file))
  const rawLeaks = files.filter((file) => !/^protocol\/[^/]+\//.test(file) && /order_type/.test(strip(file)))
  const normalizedLeaks = files.filter((file) => !file.startsWith('protocol/') && /\borderType\b/.test(strip(file)))
  expect({ rawLeaks, normalizedLeaks }).toEqual({ rawLeaks: [], normalizedLeaks: [] })
  // enigma's own fields are read by its codec too, as rasa's order_type is.
  expect(strip('protocol/normalizeNotification.ts')).not.toMatch(/raw\.(version|va_address|failure_message)/)
  // The "no value" sentinel (the number 0) is applied in the codecs, not in the shared normalizer.
  expect(strip('protocol/normalizeNotification.ts')).not.toMatch(/!== 0|=== 0/)
})

it('a lazy chunk imports nothing at run time that the code every app loads imports (what it needs is handed to it), so no shared file splits off the initial bundle', () => {
  const rel = (file: string) => relative(src, file)
  const valueImports = (file: string) =>
    [...readFileSync(file, 'utf8').matchAll(/^(?:import|export) (?!type )[^'\n]*from '(\.[^']+)'/gm)].map(([, target]) => resolve(dirname(file), target!).replace(/\.js$/, '.ts'))
  // Everything `index.ts` and `query/index.ts` reach by static value imports: the eager graph.
  const eager = new Set<string>()
  const walk = (file: string) => {
    if (eager.has(file)) return
    eager.add(file)
    for (const next of valueImports(file)) walk(next)
  }
  walk(join(src, 'index.ts'))
  walk(join(src, 'query/index.ts'))
  walk(join(src, 'internal.ts'))
  // Each target of a dynamic import() and what it reaches by static value imports: the lazy chunks.
  const lazyRoots = sources(src).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/import\('(\.[^']+)'\)/g)].map(([, target]) => resolve(dirname(file), target!).replace(/\.js$/, '.ts')))
  expect(lazyRoots.length).toBeGreaterThanOrEqual(4)
  const wrong: string[] = []
  const seen = new Set<string>()
  const check = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const next of valueImports(file)) {
      if (eager.has(next)) wrong.push(`${rel(file)} imports ${rel(next)}`)
      else check(next)
    }
  }
  for (const root of lazyRoots) {
    expect(eager.has(root), `${rel(root)} is imported statically too`).toBe(false)
    check(root)
  }
  expect(wrong).toEqual([])
})

it('one clock: no raw setTimeout or setInterval in transport/ or stream/ — every timer goes through Timers (counted in stats().timers) or, for what belongs to no stream, backgroundTimer', () => {
  const raw = sources(src)
    .map((file) => relative(src, file))
    .filter((file) => /^(transport|stream)\//.test(file) && file !== 'transport/Timers.ts')
    .filter((file) => /\b(setTimeout|setInterval)\s*\(/.test(readFileSync(join(src, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
  expect(raw).toEqual([])
})
