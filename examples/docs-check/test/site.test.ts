import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchChromium } from 'example-shared/browserScenario'
import { runBuild } from 'example-shared/runBuild'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'

const here = fileURLToPath(new URL('..', import.meta.url))
const dist = fileURLToPath(new URL('../../../docs/.vitepress/dist', import.meta.url))
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.woff2': 'font/woff2' }

let server: Server
let base: string
let browser: Browser
beforeAll(async () => {
  // The site as `pnpm docs:build` makes it: TypeDoc's API pages, then VitePress.
  for (const step of [
    [join(here, 'node_modules/typedoc/bin/typedoc'), '--logLevel', 'Error'],
    [join(here, 'node_modules/vitepress/bin/vitepress.js'), 'build', '../../docs'],
  ]) {
    const build = await runBuild(process.execPath, step, { cwd: here })
    if (build.status !== 0) throw new Error(`${step[0]} failed:\n${build.stdout}\n${build.stderr}`)
  }
  // Clean URLs, as a static host serves them: /guide/resume is guide/resume.html.
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    const candidates = [join(dist, path), join(dist, `${path}.html`), join(dist, path, 'index.html')]
    const file = candidates.find((f) => f.startsWith(dist) && existsSync(f) && statSync(f).isFile())
    if (!file) {
      res.writeHead(404).end('not found')
      return
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
    createReadStream(file).pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => server?.close(resolve))
})

it('the built docs site: home, a guide, an API page, and the search box finds waitFor', async () => {
  const page = await browser.newPage()
  const failed: string[] = []
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`)
  })
  // The home page shows before it tells: a hero with its actions, the features, a code example, the comparison.
  await page.goto(`${base}/`)
  expect(await page.locator('.VPHero .name').first().textContent()).toContain('solver-notifications')
  expect(await page.locator('.VPHero .actions a').allTextContents()).toEqual(expect.arrayContaining(['Get started', 'API reference']))
  expect(await page.locator('.VPFeature').count()).toBeGreaterThanOrEqual(4)
  expect(await page.locator('.vp-doc div[class*="language-ts"]').count()).toBeGreaterThan(0)
  expect(await page.locator('.vp-doc table').first().textContent()).toContain('hand-written')
  // Nothing wider than the window.
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)

  await page.goto(`${base}/guide/getting-started`)
  expect(await page.locator('h1').first().textContent()).toContain('Getting started')
  expect(await page.locator('.VPSidebar').textContent()).toContain('Troubleshooting')

  await page.goto(`${base}/api/@solver-notifications/core/interfaces/NotificationsClient`)
  expect(await page.locator('h1').first().textContent()).toContain('NotificationsClient')
  expect(await page.locator('main').textContent()).toContain('waitFor')
  // The reference covers all seven packages, titled by package name.
  await page.goto(`${base}/api/`)
  const modules = await page.locator('.vp-doc a').allTextContents()
  for (const name of ['core', 'react', 'vue', 'svelte', 'devtools', 'testkit', 'relay', 'otel']) expect(modules).toContain(`@solver-notifications/${name}`)

  await page.goto(`${base}/`)
  await page.locator('.DocSearch, .VPNavBarSearch button').first().click()
  // The search box opens (its index loads on demand): type once it is there.
  const input = page.locator('#localsearch-input, .search-input').first()
  await input.waitFor()
  await input.fill('waitFor')
  const results = page.locator('.result, #localsearch-list li')
  await results.first().waitFor()
  expect(await results.count()).toBeGreaterThan(0)
  expect((await results.allTextContents()).join(' ')).toMatch(/waitFor/i)
  expect(failed).toEqual([])
  await page.close()
})

it('no dead link: every same-origin link of the built site opens (no 404) and every #anchor is on its page', async () => {
  const page = await browser.newPage()
  // Chromium opens each page's document (its links and ids are in the server-rendered HTML); scripts,
  // styles and fonts are not fetched, so ~200 pages take seconds, not minutes.
  await page.route('**/*', (route) => (route.request().resourceType() === 'document' ? route.continue() : route.abort()))
  const seen = new Set<string>()
  const queue = ['/']
  const anchors = new Map<string, Set<string>>()
  const wanted: Array<{ from: string; path: string; hash: string }> = []
  const dead: string[] = []
  while (queue.length > 0) {
    const path = queue.shift()!
    if (seen.has(path)) continue
    seen.add(path)
    const response = await page.goto(`${base}${path}`, { waitUntil: 'domcontentloaded' })
    if (!response || response.status() >= 400) {
      dead.push(`${path}: ${response?.status() ?? 'no response'}`)
      continue
    }
    anchors.set(path, new Set(await page.locator('[id]').evaluateAll((els) => els.map((e) => e.id))))
    const hrefs = await page.locator('a[href]').evaluateAll((els) => els.map((e) => (e as HTMLAnchorElement).href))
    for (const href of hrefs) {
      const url = new URL(href)
      if (url.origin !== base || /\.[a-z0-9]+$/i.test(url.pathname.replace(/\.html$/, ''))) continue
      const target = url.pathname.replace(/\.html$/, '').replace(/\/index$/, '/')
      if (url.hash.length > 1) wanted.push({ from: path, path: target, hash: decodeURIComponent(url.hash.slice(1)) })
      if (!seen.has(target)) queue.push(target)
    }
  }
  for (const { from, path, hash } of wanted) if (anchors.has(path) && !anchors.get(path)!.has(hash)) dead.push(`${from} → ${path}#${hash}: no such anchor`)
  expect(dead).toEqual([])
  // The guides, the package pages, the examples and the API reference were all reached.
  for (const path of ['/guide/relay', '/packages/relay', '/packages/devtools', '/examples', '/playground', '/api/@solver-notifications/core/interfaces/NotificationsClient']) expect(seen).toContain(path)
  expect(seen.size).toBeGreaterThan(150)
  await page.close()
}, 240_000)

/** The pages whose screenshots CI keeps: home (its hero) and every page of the built site that has a diagram, with how many. */
function shownPages(): Array<{ path: string; diagrams: number }> {
  const pages = [{ path: '/', diagrams: 0 }]
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name)
      if (entry.isDirectory()) walk(file)
      else if (entry.name.endsWith('.html')) {
        const diagrams = readFileSync(file, 'utf8').split('class="mermaid-diagram"').length - 1
        if (diagrams > 0) pages.push({ path: `/${relative(dist, file).replace(/\.html$/, '').replace(/(^|\/)index$/, '')}`, diagrams })
      }
    }
  }
  walk(dist)
  return pages
}

/**
 * Every diagram label that does not fit its box, at this width: an HTML label (flowcharts) wider or taller than
 * its foreignObject is clipped by it; an SVG text (sequence diagrams) inside a shape must stay within it.
 */
function clippedLabels(): string[] {
  const clipped: string[] = []
  const outside = (a: DOMRect, b: DOMRect): boolean => a.left < b.left - 1 || a.top < b.top - 1 || a.right > b.right + 1 || a.bottom > b.bottom + 1
  for (const box of document.querySelectorAll('div.mermaid-diagram svg foreignObject')) {
    const text = box.textContent?.trim()
    if (!text) continue
    const range = document.createRange()
    range.selectNodeContents(box)
    const label = range.getBoundingClientRect()
    const shape = box.getBoundingClientRect()
    if (outside(label, shape)) clipped.push(`"${text}": ${label.width.toFixed(0)}×${label.height.toFixed(0)} px in a ${shape.width.toFixed(0)}×${shape.height.toFixed(0)} box`)
  }
  for (const element of document.querySelectorAll('div.mermaid-diagram svg text')) {
    const text = element.textContent?.trim()
    if (!text) continue
    const label = element.getBoundingClientRect()
    const cx = (label.left + label.right) / 2
    const cy = (label.top + label.bottom) / 2
    // The smallest shape of its group under the label's centre is its box (a message over an arrow has none).
    const shapes = Array.from(element.parentElement?.querySelectorAll(':scope > rect, :scope > polygon, :scope > path') ?? [], (e) => e.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0 && cx >= r.left && cx <= r.right && cy >= r.top && cy <= r.bottom)
      .sort((a, b) => a.width * a.height - b.width * b.height)
    if (shapes[0] && outside(label, shapes[0])) clipped.push(`"${text}": ${label.width.toFixed(0)}×${label.height.toFixed(0)} px in a ${shapes[0].width.toFixed(0)}×${shapes[0].height.toFixed(0)} shape`)
  }
  return clipped
}

it('diagrams are drawn as pictures (no mermaid source, no label clipped), the home hero fills its width, and the shown pages fit the window at 1280 and 390 px (screenshots kept)', async () => {
  const out = join(here, 'test-output')
  mkdirSync(out, { recursive: true })
  const shown = shownPages()
  // The pages with diagrams are found in the built site; these must be among them.
  for (const path of ['/guide/resume', '/guide/continuity', '/guide/live-streams', '/guide/cross-tab', '/guide/relay', '/guide/observability', '/architecture']) expect(shown.map((p) => p.path)).toContain(path)
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    for (const { path, diagrams } of shown) {
      await page.goto(`${base}${path}`)
      await page.locator('.VPContent').waitFor()
      // Each diagram settles (drawn, or its parse error shown) before it is judged.
      if (diagrams > 0) await page.waitForFunction((n) => document.querySelectorAll('div.mermaid-diagram[data-rendered="svg"], div.mermaid-diagram[data-rendered="error"]').length === n, diagrams)
      const drawn = await page.locator('div.mermaid-diagram').evaluateAll((els) => els.map((e) => `${(e as HTMLElement).dataset.rendered}:${e.querySelector('svg') ? 'svg' : (e.textContent ?? '').slice(0, 200)}`))
      expect(drawn, path).toEqual(Array.from({ length: diagrams }, () => 'svg:svg'))
      expect(await page.evaluate(clippedLabels), `${path} at ${width} px`).toEqual([])
      // Readable: no diagram is drawn below 0.7 of its size (labels of 11 px at least); on a phone a wider
      // one scrolls inside its box, at the desktop width every one fits its column.
      const sizes = await page.locator('div.mermaid-diagram').evaluateAll((els) => els.map((e) => ({ scale: e.querySelector('svg')!.getBoundingClientRect().width / e.querySelector('svg')!.viewBox.baseVal.width, scrolls: e.scrollWidth > e.clientWidth })))
      for (const { scale, scrolls } of sizes) {
        expect(scale, `${path} at ${width} px`).toBeGreaterThanOrEqual(0.69)
        if (width >= 1280) expect(scrolls, `${path} at ${width} px scrolls sideways`).toBe(false)
      }
      // No source of a diagram anywhere on the page.
      expect(await page.locator('div[class*="language-mermaid"]').count(), path).toBe(0)
      expect(await page.locator('.vp-doc').first().textContent(), path).not.toMatch(/sequenceDiagram|flowchart (LR|TD)/)
      if (path === '/') {
        expect(await page.locator('.VPHero .name').first().isVisible()).toBe(true)
        // At desktop widths the hero's right half shows a stream (it was empty); on a phone the text stands alone.
        const picture = page.locator('.VPHero .hero-stream')
        expect(await picture.count()).toBe(1)
        if (width >= 960) {
          const box = await picture.boundingBox()
          expect(box, 'the hero picture').not.toBeNull()
          expect(box!.x).toBeGreaterThan(width / 2)
          expect(await picture.locator('li').count()).toBeGreaterThanOrEqual(5)
        } else expect(await picture.isVisible()).toBe(false)
      }
      // Nothing wider than the window: no page scrolls sideways (a wide table or diagram scrolls inside itself).
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), `${path} at ${width} px`).toBeLessThanOrEqual(0)
      const name = path === '/' ? 'home' : path.slice(1).replace(/\//g, '-')
      // The whole page at the desktop width, the first screen at the phone width.
      await page.screenshot({ path: join(out, `${name}-${width}.png`), fullPage: width > 400 })
    }
    expect(errors).toEqual([])
    await page.close()
  }
}, 180_000)

it('the playground runs the client in the page: a published lifecycle arrives live; a drop while more is published is backfilled, marked recovered', async () => {
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(`${base}/playground`)
  await page.locator('.playground strong.status').filter({ hasText: 'open' }).waitFor()
  await page.getByRole('button', { name: /Publish a quote/ }).click()
  await page.locator('.playground .log li.live').first().waitFor()
  const published = Number(await page.locator('.playground .published').textContent())
  expect(published).toBeGreaterThan(0)
  await page.locator('.playground .delivered').filter({ hasText: String(published) }).waitFor()
  await page.getByRole('button', { name: /Drop the socket/ }).click()
  // The gap is noticed, read from history once the socket is back, and what it missed arrives marked.
  await page.locator('.playground .log li.backfill').first().waitFor({ timeout: 20_000 })
  await page.locator('.playground .log li.gap', { hasText: 'backfill finished' }).first().waitFor()
  const total = Number(await page.locator('.playground .published').textContent())
  expect(total).toBeGreaterThan(published)
  await page.locator('.playground .delivered').filter({ hasText: String(total) }).waitFor()
  expect(await page.locator('.playground .log li.backfill').count()).toBe(total - published)
  expect(errors).toEqual([])
  await page.close()
})
