// Jest's default fake timers (modern: Date, timers, nextTick and queueMicrotask faked in the test's
// global) drive a client on the in-memory simulator: no port, no real time. What works: the *Async
// clock APIs, which let the promise turns between timers run (see docs/guide/testing.md).
const { createConfig, createNotificationsClient } = require('@solver-notifications/core')
const { startMemorySimulator } = require('@solver-notifications/testkit')

jest.useFakeTimers()

const account = '0x1111111111111111111111111111111111111111'
const finished = (events) => events.filter((e) => e.type === 'status' && e.backfill && e.backfill.state === 'finished').length
const ids = (events) => events.flatMap((e) => (e.type === 'notification' ? [e.notification.id] : []))
async function until(test, what) {
  for (let i = 0; i < 200; i++) {
    if (test()) return
    await jest.advanceTimersByTimeAsync(50)
  }
  throw new Error(`fake time ran 10 s and still not: ${what}`)
}

test.each(['enigma', 'rasa'])('%s: a resume stream on the in-memory simulator under jest.useFakeTimers(): live, a drop backfilled, closed without a timer left', async (protocol) => {
  const sim = await startMemorySimulator({ protocol, channel: 'Jest' })
  const notifications = protocol === 'enigma' ? { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } : { protocol, url: sim.wsUrl }
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications } } } } })
  const client = createNotificationsClient({ config, ...sim.clientOptions })
  const events = []
  const sub = client.events({ account }, { resume: true }).subscribe((e) => events.push(e))
  await until(() => finished(events) === 1, 'the first backfill')
  const live = await sim.instantOpen(account)
  await until(() => live.frames.every((f) => ids(events).includes(f.id)), 'the live lifecycle')
  await sim.dropAll(1012)
  const missed = await sim.instantOpen(account)
  await until(() => finished(events) === 2, 'the backfill after the drop')
  const recoverable = (protocol === 'enigma' ? missed.frames : missed.frames.slice(-1)).map((f) => f.id)
  await until(() => recoverable.every((id) => ids(events).includes(id)), 'what the drop missed')
  expect(events.filter((e) => e.type === 'error')).toEqual([])
  sub.unsubscribe()
  client.close()
  const closing = sim.close()
  await jest.advanceTimersByTimeAsync(100)
  await closing
  expect(client.stats().timers).toBe(0)
})
