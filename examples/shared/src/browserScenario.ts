import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import { build } from 'vite'
import { DEMO_ACCOUNT } from './appConfig.js'
import { serveDir, startDemoSimulators } from './demoSimulators.js'

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/**
 * A Chromium that needs nothing installed by hand, never downloaded at test time: `CHROMIUM_PATH`
 * when set, else Debian's `/usr/bin/chromium` when present, else the one the `@sparticuz/chromium`
 * registry package ships (unpacked once into the temp dir; parallel test files wait for the first
 * unpack under a lock, since concurrent unpacks fail with ETXTBSY).
 */
export async function chromiumPath(): Promise<string> {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium'
  const { default: packaged } = await import('@sparticuz/chromium')
  const lock = join(tmpdir(), 'solver-notifications-chromium.lock')
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      // another test process is unpacking; a lock older than 2 minutes belongs to a dead one
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs
      if (since !== undefined && Date.now() - since > 120_000) rmSync(lock, { recursive: true, force: true })
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  try {
    return await packaged.executablePath()
  } catch (cause) {
    throw new Error('No browser for the browser tests: set CHROMIUM_PATH, install Debian chromium, or check that @sparticuz/chromium could unpack into the temp dir.', { cause })
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/** Headless Chromium for the browser tests, with flags that keep it off the (closed) network. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: await chromiumPath(), args: CHROMIUM_ARGS })
}

/**
 * The scenario every example app passes in a real browser: build it, start simulators, open the page,
 * see the quote book (one row per quote) say synced, a dropped connection go reconnecting → open, search and
 * page, wait for a fill that only history confirms, reload, fit 390 px, switch solver, and save a
 * screenshot under the example's test-output.
 */
export async function runExampleInBrowser(root: string, check: (message: string, ok: boolean) => void): Promise<void> {
  const outDir = join(root, 'test-output', 'dist')
  await build({ root, logLevel: 'error', build: { outDir, emptyOutDir: true } })
  const sims = await startDemoSimulators()
  const site = await serveDir(outDir)
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(`${site.url}/?${sims.query}&account=${DEMO_ACCOUNT}`)
    await page.getByTestId('status').filter({ hasText: 'open' }).waitFor()
    await waitUntil(() => sims.rasa.subscriptions().length === 1)

    const first = await sims.rasa.instantOpen(DEMO_ACCOUNT)
    const row = page.getByTestId(`quote-t${first.tempQuoteId}`)
    await row.getByText(`quote ${first.quoteId}`).waitFor()
    await row.getByTestId('entry').nth(2).waitFor()
    check('a quote is one row from its temporary id to its fill, with its transitions', (await page.locator('[data-testid^="quote-t"]').count()) === 1 && (await row.getByTestId('entry').count()) === 3)
    check('the row shows the quote status', (await row.getByTestId('quote-status').textContent()) === 'open')
    await page.getByTestId('continuity').filter({ hasText: 'synced' }).waitFor()
    check('the book says synced (complete)', (await page.getByTestId('continuity').getAttribute('title')) === 'complete')

    await sims.rasa.dropAll(1012)
    await page.getByTestId('status-log').filter({ hasText: /reconnecting.*open$/ }).waitFor()
    await waitUntil(() => sims.rasa.subscriptions().length >= 2)
    const second = await sims.rasa.instantOpen(DEMO_ACCOUNT)
    await page.getByTestId(`quote-t${second.tempQuoteId}`).getByText(`quote ${second.quoteId}`).waitFor()
    await page.getByTestId('continuity').filter({ hasText: 'synced' }).waitFor()
    check('a dropped connection shows reconnecting then live again, and the book synced again', true)

    for (let i = 0; i < 5; i++) await sims.rasa.instantOpen(DEMO_ACCOUNT)
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByTestId('search-row').nth(4).waitFor()
    check('search returns a full first page', (await page.getByTestId('search-row').count()) === 5)
    await page.getByRole('button', { name: 'Next' }).click()
    await page.getByTestId('search-page').filter({ hasText: 'rows 6–7 of 7' }).waitFor()
    check('paging shows the rest', (await page.getByTestId('search-row').count()) === 2)

    // "Wait for fill": the close fill reaches history only, never the socket; the chase confirms it.
    await row.getByRole('button', { name: 'Wait for fill' }).click()
    const t = sims.rasa.tick()
    const base = { quote_id: first.quoteId, temp_quote_id: first.tempQuoteId, counterparty_address: DEMO_ACCOUNT, create_time: t - 10 }
    await sims.rasa.publish({ ...base, id: 'close-req', last_seen_action: 'InstantRequestToClosePosition', action_status: 'success', modify_time: t })
    await sims.rasa.publish({ ...base, id: 'close-fill', last_seen_action: 'FillOrderInstantClose', action_status: 'success', filled_amount_open: '1.5', filled_amount_close: '1.5', modify_time: t + 1 }, { live: false })
    await row.getByTestId('wait-result').filter({ hasText: 'filled: closed' }).waitFor()
    check('"wait for fill" is confirmed through history when the socket never says so', true)

    // A reload loads the book from history: the same rows, marked as backfilled.
    await page.reload()
    await page.getByTestId('quote-count').filter({ hasText: '7 quotes' }).waitFor()
    check('a reload shows the same book, from history (backfill marks)', (await row.getByTestId('backfill-mark').count()) > 0 && (await row.getByTestId('quote-status').textContent()) === 'closed')

    // 390 px wide: nothing sticks out sideways.
    await page.setViewportSize({ width: 390, height: 844 })
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    check(`the layout fits 390 px (overflow ${overflow}px)`, overflow <= 0)

    // Another solver: the old book goes, the new one fills from its own stream.
    await page.getByLabel('solver').selectOption('alpha')
    await page.getByTestId('quote-count').filter({ hasText: '0 quotes' }).waitFor()
    check('a solver switch clears the old book', (await page.locator('[data-testid^="quote-t"]').count()) === 0)
    await waitUntil(() => sims.enigma.subscriptions().length >= 1)
    await page.getByTestId('status').filter({ hasText: 'open' }).waitFor()
    const other = await sims.enigma.instantOpen(DEMO_ACCOUNT)
    await page.getByTestId(`quote-t${other.tempQuoteId}`).getByText(`quote ${other.quoteId}`).waitFor()
    check('the new solver’s quotes arrive', (await page.locator('[data-testid^="quote-t"]').count()) === 1)

    mkdirSync(join(root, 'test-output'), { recursive: true })
    await page.screenshot({ path: join(root, 'test-output', 'screenshot.png'), fullPage: true })
    check(`no page errors (${errors.join('; ')})`, errors.length === 0)
  } finally {
    await browser.close()
    site.server.close()
    await sims.close()
  }
}

/**
 * The React example's "share sockets across tabs" switch: turned on in one tab, a second tab opened
 * after it shares; the simulator sees one socket for both, and both show the same quote live.
 */
export async function runCrossTabInBrowser(root: string, check: (message: string, ok: boolean) => void): Promise<void> {
  const outDir = join(root, 'test-output', 'dist-crosstab')
  await build({ root, logLevel: 'error', build: { outDir, emptyOutDir: true } })
  const sims = await startDemoSimulators()
  const site = await serveDir(outDir)
  const browser = await launchChromium()
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } })
    const url = `${site.url}/?${sims.query}&account=${DEMO_ACCOUNT}`
    const first = await context.newPage()
    await first.goto(url)
    // The switch sits after the status log in the header: each status the socket goes through moves it.
    // Clicked while "connecting" became "connecting → open", the click landed beside it (seen once in CI,
    // on a loaded machine); once open, the header stays put (as the devtools scenario waits too).
    await first.getByTestId('status').filter({ hasText: 'open' }).waitFor()
    await first.getByLabel('share sockets across tabs').check()
    await first.getByTestId('cross-tab-role').filter({ hasText: 'leader' }).waitFor()
    const second = await context.newPage()
    await second.goto(url)
    // Which tab leads depends on which one the browser shows (a hidden leader hands over): one of each.
    const roles = async () => (await Promise.all([first, second].map((p) => p.getByTestId('cross-tab-role').textContent()))).map((t) => t?.trim()).sort()
    await waitUntilAsync(async () => JSON.stringify(await roles()) === JSON.stringify(['(follower · 2 tabs)', '(leader · 2 tabs)']))
    check('the two tabs share: one leads, one follows', true)
    await waitUntil(() => sims.rasa.subscriptions().length >= 1)
    await second.getByTestId('status').filter({ hasText: 'open' }).waitFor()
    const opened = await sims.rasa.instantOpen(DEMO_ACCOUNT)
    for (const page of [first, second]) await page.getByTestId(`quote-t${opened.tempQuoteId}`).getByText(`quote ${opened.quoteId}`).waitFor()
    check('both tabs show the quote', true)
    check(`one socket for both tabs (${sims.rasa.connections().filter((c) => c.open).length})`, sims.rasa.connections().filter((c) => c.open).length === 1)
    await second.screenshot({ path: join(root, 'test-output', 'screenshot-second-tab.png') })
  } finally {
    await browser.close()
    site.server.close()
    await sims.close()
  }
}

async function waitUntilAsync(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * The React example's devtools toggle: the panel loads on demand, shows the socket and the stream,
 * and its "drop socket" button makes the stream go reconnecting → open and backfill what it missed.
 */
export async function runDevtoolsInBrowser(root: string, check: (message: string, ok: boolean) => void): Promise<void> {
  const outDir = join(root, 'test-output', 'dist-devtools')
  await build({ root, logLevel: 'error', build: { outDir, emptyOutDir: true } })
  const sims = await startDemoSimulators()
  const site = await serveDir(outDir)
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    const scripts: string[] = []
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(r.url())
    })
    await page.goto(`${site.url}/?${sims.query}&account=${DEMO_ACCOUNT}`)
    await page.getByTestId('status').filter({ hasText: 'open' }).waitFor()
    await waitUntil(() => sims.rasa.subscriptions().length === 1)
    const before = scripts.length
    await page.getByLabel('devtools').check()
    const panel = page.locator('solver-notifications-devtools')
    // Like TanStack Query's devtools: a toggle in a corner, the panel closed until it is pressed.
    const toggle = panel.locator('button.toggle')
    await toggle.waitFor()
    await toggle.click()
    await panel.locator('section.socket[data-state="open"]').waitFor()
    check('the panel loads on demand (a script fetched when turned on)', scripts.length > before)
    check('the panel shows the socket (rasa, open) and the stream of the account', (await panel.locator('section.socket').first().textContent())!.includes('rasa') && (await panel.locator(`.stream[data-account="${DEMO_ACCOUNT}"]`).count()) >= 1)
    await sims.rasa.instantOpen(DEMO_ACCOUNT)
    // The status stream and the quote book's each show them (both resume streams of the account).
    const stream = panel.locator(`.stream[data-account="${DEMO_ACCOUNT}"]`).first()
    await stream.locator('li.live').nth(2).waitFor()
    check('the newest notifications of the stream show, marked live', (await stream.locator('li.live').count()) === 3)
    // The layout a person sees: a screenshot of the open panel, the toggle visible, newest first, the panel inside the viewport.
    const viewport = page.viewportSize()!
    const shot = await page.screenshot({ path: join(root, 'test-output', 'devtools-open.png') })
    const box = await panel.locator('.panel').boundingBox()
    const toggleBox = await toggle.boundingBox()
    const inside = (b: { x: number; y: number; width: number; height: number } | null) => b !== null && b.x >= 0 && b.y >= 0 && b.x + b.width <= viewport.width && b.y + b.height <= viewport.height
    const order = await stream.locator('li.live').allTextContents()
    check(
      `the open panel's layout: toggle visible, panel inside the viewport and scrollable, newest first (${JSON.stringify({ box, toggleBox, order, shot: shot.length })})`,
      shot.length > 10_000 &&
        (await toggle.isVisible()) &&
        inside(box) &&
        inside(toggleBox) &&
        (await panel.locator('.panel').evaluate((el) => getComputedStyle(el).overflowY === 'auto' && getComputedStyle(el).position === 'fixed')) &&
        order.length === 3 &&
        order[0]!.includes('FillLimitOrderOpen') &&
        order[2]!.includes('InstantRFQ'),
    )
    await panel.getByRole('button', { name: 'drop socket' }).click()
    await page.getByTestId('status-log').filter({ hasText: /reconnecting.*open$/ }).waitFor()
    await panel.locator('[data-backfill="finished"]').first().waitFor()
    check('"drop socket": reconnecting, then open, and a finished backfill', true)
    check(`no page errors (${errors.join('; ')})`, errors.length === 0)
  } finally {
    await browser.close()
    site.server.close()
    await sims.close()
  }
}
