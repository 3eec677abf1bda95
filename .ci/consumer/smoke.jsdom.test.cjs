/**
 * @jest-environment jsdom
 */
// Jest's jsdom environment (how many React apps run their tests): core loads (nothing may read
// TextEncoder at module load: jsdom has none) and subscribes through jsdom's WebSocket to a simulator
// running in Node (SIM_URLS).
const { createConfig, createNotificationsClient } = require('@solver-notifications/core')

test('core loads and subscribes under Jest jsdom', async () => {
  expect(typeof globalThis.TextEncoder === 'undefined' || typeof globalThis.TextEncoder === 'function').toBe(true)
  const account = '0xAbC0000000000000000000000000000000000001'
  const urls = JSON.parse(process.env.SIM_URLS)
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: urls.httpUrl, notifications: { protocol: 'rasa', url: urls.wsUrl } } } } } })
  const client = createNotificationsClient({ config })
  const n = await new Promise((resolve) => {
    const sub = client.notifications({ account }).subscribe((value) => {
      sub.unsubscribe()
      resolve(value)
    })
  })
  expect(n.quoteId).toBe(7)
  client.close()
}, 30_000)
