import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchChromium } from 'example-shared/browserScenario'
import { serveDir, startDemoSimulators } from 'example-shared/demoSimulators'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { build } from 'vite'
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest'

// One socket per browser, proven in real Chromium: several pages of one origin, each with
// its own client (crossTab on), against the simulators.

const root = fileURLToPath(new URL('..', import.meta.url))
const A = '0xabc0000000000000000000000000000000000001'
const B = '0xabc0000000000000000000000000000000000002'
type Harness = {
  subscribe(name: string, account: string, solverId: string, resume: boolean): void
  unsubscribe(name: string): void
  ids(name: string): string[]
  lastStatus(name: string): string | undefined
  events(name: string): Array<{ type: string; status?: string; [more: string]: unknown }>
  toastOnce(account: string, solverId: string): void
  toasts(): string[]
  isNotifier(account: string, solverId: string): boolean
  stats(): { sockets: number; crossTab?: { role: string; tabs: number; dropped: number } }
  post(message: unknown, channel?: string): void
}
declare const harness: Harness

let browser: Browser
let site: Awaited<ReturnType<typeof serveDir>>
let sims: Awaited<ReturnType<typeof startDemoSimulators>>
let context: BrowserContext
beforeAll(async () => {
  const outDir = join(root, 'test-output', 'dist')
  await build({ root, logLevel: 'error', build: { outDir, emptyOutDir: true } })
  site = await serveDir(outDir)
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  site?.server.close()
})
beforeEach(async () => {
  sims = await startDemoSimulators()
  context = await browser.newContext()
})
afterEach(async () => {
  await context.close()
  await sims.close()
})

async function openPage(): Promise<Page> {
  const page = await context.newPage()
  await page.goto(`${site.url}/?${sims.query}`)
  await page.waitForFunction(() => typeof (window as { harness?: unknown }).harness === 'object')
  return page
}
const call = <T>(page: Page, fn: (h: Harness, arg: never) => T, arg?: unknown): Promise<T> =>
  page.evaluate(([source, a]) => new Function('h', 'a', `return (${source})(h, a)`)((window as unknown as { harness: Harness }).harness, a), [fn.toString(), arg] as const) as Promise<T>
/** Polls a condition of the pages; on timeout the error says what was awaited and, given `detail`, what the pages held. */
async function until(test: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000, detail?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}${detail ? `; the pages: ${await detail()}` : ''}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
const roles = (pages: Page[]) => Promise.all(pages.map((p) => call(p, (h) => h.stats().crossTab?.role)))
const openSockets = () => ({ enigma: sims.enigma.connections().filter((c) => c.open).length, rasa: sims.rasa.connections().filter((c) => c.open).length })

it('3 pages on the same 2 accounts and both protocols: the simulators see one socket per socket key; every page gets every notification', async () => {
  const pages = [await openPage(), await openPage(), await openPage()]
  for (const page of pages) {
    for (const account of [A, B]) for (const solver of ['alpha', 'beta']) await call(page, (h, a: [string, string]) => h.subscribe(`${a[0]}-${a[1]}`, a[0], a[1], true), [account, solver])
  }
  await Promise.all([sims.enigma.waitForSubscribers(A), sims.enigma.waitForSubscribers(B), sims.rasa.waitForSubscribers(A), sims.rasa.waitForSubscribers(B)])
  await until(async () => (await Promise.all(pages.map((p) => call(p, (h) => h.stats().crossTab?.tabs)))).every((n) => n === 3), 'three tabs')
  const published = [await sims.enigma.instantOpen(A), await sims.enigma.instantOpen(B), await sims.rasa.instantOpen(A), await sims.rasa.instantOpen(B)].flatMap((l) => l.frames.map((f) => f.id))
  const streams = [A, B].flatMap((a) => ['alpha', 'beta'].map((s) => `${a}-${s}`))
  await until(async () => {
    for (const page of pages) for (const s of streams) if ((await call(page, (h, n: string) => h.ids(n).length, s)) < 3) return false
    return true
  }, 'every page to get every notification')
  expect(openSockets()).toEqual({ enigma: 2, rasa: 1 })
  for (const page of pages) {
    const got = (await Promise.all(streams.map((s) => call(page, (h, n: string) => h.ids(n), s)))).flat()
    expect(got.sort()).toEqual([...published].sort())
  }
  const r = await roles(pages)
  expect(r.filter((x) => x === 'leader')).toHaveLength(1)
  for (const page of pages) {
    const stats = await call(page, (h) => h.stats())
    expect(stats.sockets).toBe(stats.crossTab!.role === 'leader' ? 3 : 0)
  }
  // A foreign or malformed message on the channel is dropped and counted, never trusted. A message of
  // the first release goes on that release's channel (no version in its name): these tabs never hear it.
  await call(pages[0]!, (h) => h.post({ v: 1, t: 'n', tab: 'intruder', to: 'x', sid: 's', n: { type: 'evil' } }, 'solver-notifications:harness'))
  await call(pages[0]!, (h) => h.post({ v: 2, t: 'n', tab: 'intruder', to: 'x', sid: 's', n: { type: 'evil' } }))
  await until(async () => (await call(pages[1]!, (h) => h.stats().crossTab!.dropped)) >= 1, 'the message to be dropped')
  expect(await Promise.all(pages.map((p) => call(p, (h) => h.stats().crossTab!.dropped)))).toEqual([1, 1, 1])
})

it('closing the leader page while lifecycles are published: another leads within 2 s and every resume stream has every transition once', async () => {
  const pages = [await openPage(), await openPage(), await openPage()]
  for (const page of pages) await call(page, (h, a: string) => h.subscribe('s', a, 'alpha', true), A)
  await sims.enigma.waitForSubscribers(A)
  await until(async () => (await Promise.all(pages.map((p) => call(p, (h) => h.stats().crossTab?.tabs)))).every((n) => n === 3), 'three tabs')
  const leader = (await roles(pages)).indexOf('leader')
  const rest = pages.filter((_, i) => i !== leader)
  const frames: string[] = []
  let closedAt = 0
  for (let i = 0; i < 10; i++) {
    frames.push(...(await sims.enigma.instantOpen(A)).frames.map((f) => f.id as string))
    if (i === 4) {
      await pages[leader]!.close()
      closedAt = Date.now()
    }
  }
  await until(async () => (await roles(rest)).includes('leader'), 'a new leader', 5_000)
  const tookMs = Date.now() - closedAt
  expect(tookMs).toBeLessThan(2_000)
  for (const page of rest) {
    await until(async () => (await call(page, (h) => h.ids('s').length)) >= 30, 'the page to catch up')
    expect((await call(page, (h) => h.ids('s'))).sort()).toEqual([...frames].sort())
  }
})

it('a late page is connecting until the leader serves it, then open; a page that unsubscribes releases only its share; notifyOnce toasts in one page', async () => {
  const first = await openPage()
  await call(first, (h, a: string) => h.subscribe('s', a, 'alpha', false), A)
  await until(async () => (await call(first, (h) => h.lastStatus('s'))) === 'open', 'open')
  const late = await openPage()
  await call(late, (h, a: string) => h.subscribe('s', a, 'alpha', false), A)
  await until(async () => (await call(late, (h) => h.lastStatus('s'))) === 'open', 'open in the late page')
  // Nothing reaches it before the leader serves it: connecting until then (a resume stream backfills that stretch).
  expect((await call(late, (h) => h.events('s'))).filter((e) => e.type === 'status').map((e) => e.status)).toEqual(['connecting', 'open'])
  const follower = (await call(first, (h) => h.stats().crossTab!.role)) === 'leader' ? late : first
  await call(follower, (h) => h.unsubscribe('s'))
  await sims.enigma.instantOpen(A)
  const other = follower === first ? late : first
  await until(async () => (await call(other, (h) => h.ids('s').length)) === 3, 'the other page to go on')
  expect(openSockets().enigma).toBe(1)

  const third = await openPage()
  const pages = [first, late, third]
  for (const page of pages) await call(page, (h, a: string) => h.toastOnce(a, 'beta'), A)
  await sims.rasa.waitForSubscribers(A)
  await until(async () => (await Promise.all(pages.map((p) => call(p, (h, a: string) => h.isNotifier(a, 'beta'), A)))).filter(Boolean).length === 1, 'one notifier')
  await sims.rasa.instantOpen(A)
  await until(async () => (await Promise.all(pages.map((p) => call(p, (h) => h.toasts().length)))).reduce((x, y) => x + y) >= 3, 'three toasts')
  await sims.rasa.instantOpen(A)
  await until(async () => (await Promise.all(pages.map((p) => call(p, (h) => h.toasts().length)))).reduce((x, y) => x + y) >= 6, 'six toasts')
  const counts = await Promise.all(pages.map((p) => call(p, (h) => h.toasts().length)))
  expect(counts.sort()).toEqual([0, 0, 6])
})

it('a leader page that becomes hidden hands the sockets to a visible page; its stream goes on without a gap', async () => {
  const pages = [await openPage(), await openPage()]
  for (const page of pages) await call(page, (h, a: string) => h.subscribe('s', a, 'beta', true), A)
  await sims.rasa.waitForSubscribers(A)
  await until(async () => (await Promise.all(pages.map((p) => call(p, (h) => h.stats().crossTab?.tabs)))).every((n) => n === 2), 'two tabs')
  const leader = pages[(await roles(pages)).indexOf('leader')]!
  const other = pages.find((p) => p !== leader)!
  const first = await sims.rasa.instantOpen(A)
  const before = new Set(sims.rasa.connections().map((c) => c.id))
  // The page goes to the background (as a switched-away tab does).
  await leader.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' })
    document.dispatchEvent(new Event('visibilitychange'))
  })
  await until(async () => (await call(other, (h) => h.stats().crossTab?.role)) === 'leader', 'the visible page to lead', 5_000)
  expect(await call(leader, (h) => h.stats().crossTab?.role)).toBe('follower')
  // Published once the new leader's socket watches the account, as with any socket (the testkit's
  // rule): rasa stores the latest state per quote, so what is published while no socket watches is
  // recovered as that state only, not as every transition (docs/guide/cross-tab.md, "Handoff").
  // Each page's stream is served again (its `open` after the handoff's `reconnecting`).
  const servedAgain = (h: Harness) => {
    const statuses = h.events('s').flatMap((e) => (e.type === 'status' ? [e.status] : []))
    return statuses.lastIndexOf('open') > statuses.lastIndexOf('reconnecting') && statuses.includes('reconnecting')
  }
  await until(async () => (await Promise.all(pages.map((p) => call(p, servedAgain)))).every(Boolean), 'both streams served again')
  await until(() => sims.rasa.connections().some((c) => c.open && !before.has(c.id) && c.accounts.includes(A.toLowerCase())), "the new leader's socket to watch the account")
  const publishing = Date.now()
  const second = await sims.rasa.instantOpen(A)
  const published = Date.now()
  const ids = [...first.frames, ...second.frames].map((f) => f.id)
  const seen = async () =>
    JSON.stringify({
      publishing,
      published,
      frames: second.frames.map((f) => [f.id, f.modify_time]),
      pages: await Promise.all(pages.map(async (p) => ({ leader: p === leader, role: await call(p, (h) => h.stats().crossTab), events: await call(p, (h) => h.events('s')) }))),
    })
  for (const page of pages) {
    await until(async () => (await call(page, (h) => h.ids('s').length)) >= 6, 'both lifecycles in each page', 15_000, seen)
    expect((await call(page, (h) => h.ids('s'))).sort()).toEqual([...ids].sort())
  }
})

it("a leader page that becomes hidden keeps its socket until the new leader's serves: a rasa quote moving while the new socket is refused reaches every page, each transition once", async () => {
  const pages = [await openPage(), await openPage()]
  for (const page of pages) await call(page, (h, a: string) => h.subscribe('s', a, 'beta', true), A)
  await sims.rasa.waitForSubscribers(A)
  await until(async () => (await Promise.all(pages.map((p) => call(p, (h) => h.stats().crossTab?.tabs)))).every((n) => n === 2), 'two tabs')
  await until(async () => (await Promise.all(pages.map((p) => call(p, (h) => h.lastStatus('s'))))).every((s) => s === 'open'), 'both streams served')
  const leader = pages[(await roles(pages)).indexOf('leader')]!
  const other = pages.find((p) => p !== leader)!
  // The new leader's dial is refused: only the old leader's socket watches the account while the quote moves.
  sims.rasa.refuseSockets(true)
  await leader.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' })
    document.dispatchEvent(new Event('visibilitychange'))
  })
  await until(async () => (await call(other, (h) => h.stats().crossTab?.role)) === 'leader', 'the visible page to lead', 5_000)
  const { frames } = await sims.rasa.instantOpen(A)
  sims.rasa.refuseSockets(false)
  const ids = frames.map((f) => f.id)
  expect(ids.length).toBeGreaterThanOrEqual(3)
  const seen = async () => JSON.stringify(await Promise.all(pages.map(async (p) => ({ leader: p === leader, events: await call(p, (h) => h.events('s')) }))))
  for (const page of pages) {
    await until(async () => (await call(page, (h) => h.ids('s').length)) >= ids.length, 'the lifecycle in each page', 15_000, seen)
    expect(await call(page, (h) => h.ids('s'))).toEqual(ids)
  }
  // Then the old leader lets go: one rasa socket, the new leader's.
  await until(() => openSockets().rasa === 1 && sims.rasa.connections().some((c) => c.open && c.accounts.includes(A.toLowerCase())), 'one rasa socket again')
  expect(await call(leader, (h) => h.stats().sockets)).toBe(0)
})
