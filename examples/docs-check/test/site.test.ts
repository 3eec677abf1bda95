import { execFileSync } from 'node:child_process'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchChromium } from 'example-shared/browserScenario'
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
  execFileSync(process.execPath, [join(here, 'node_modules/typedoc/bin/typedoc'), '--logLevel', 'Error'], { cwd: here, stdio: 'pipe' })
  execFileSync(process.execPath, [join(here, 'node_modules/vitepress/bin/vitepress.js'), 'build', '../../docs'], { cwd: here, stdio: 'pipe' })
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
  for (const name of ['core', 'react', 'vue', 'svelte', 'devtools', 'testkit', 'relay']) expect(modules).toContain(`@solver-notifications/${name}`)

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
