import { expect, it } from 'vitest'
import { startSolverSimulator } from './startSolverSimulator.js'

it('recordLimit bounds the inspection logs: the newest entries are kept, the oldest dropped', async () => {
  const sim = await startSolverSimulator({ protocol: 'rasa', recordLimit: 3 })
  for (let i = 0; i < 5; i++) await fetch(`${sim.httpUrl}/position-state/0/${i + 1}`, { method: 'POST', body: JSON.stringify({ address: null }) })
  expect(sim.httpRequests().map((r) => r.url)).toEqual(['/position-state/0/3', '/position-state/0/4', '/position-state/0/5'])
  await sim.close()
  await expect(startSolverSimulator({ protocol: 'rasa', recordLimit: -1 })).rejects.toThrow(/recordLimit must be a whole number/)
})
