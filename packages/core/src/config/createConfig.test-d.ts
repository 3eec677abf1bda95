import { describe, expectTypeOf, it } from 'vitest'
import { createConfig } from './createConfig.js'
import type { SolverId, SolverProtocol } from './types.js'

const config = createConfig({
  defaultChainId: 42161,
  chains: {
    42161: {
      defaultSolver: 'alpha',
      solvers: {
        alpha: { notifications: { protocol: 'enigma', url: 'wss://a.example/ws', channel: 'C' } },
        beta: { url: 'https://b.example', notifications: { protocol: 'rasa', url: 'wss://b.example/ws' } },
      },
    },
    8453: { defaultSolver: 'gamma', solvers: { gamma: { notifications: { protocol: 'rasa', url: 'wss://g.example/ws' } } } },
  },
})

describe('config types', () => {
  it('knows the configured solver ids', () => {
    expectTypeOf<SolverId<typeof config>>().toEqualTypeOf<'alpha' | 'beta' | 'gamma'>()
  })
  it('maps each solver id to its protocol', () => {
    expectTypeOf<SolverProtocol<typeof config, 'alpha'>>().toEqualTypeOf<'enigma'>()
    expectTypeOf<SolverProtocol<typeof config, 'beta'>>().toEqualTypeOf<'rasa'>()
    expectTypeOf<SolverProtocol<typeof config, 'gamma'>>().toEqualTypeOf<'rasa'>()
  })
  it('falls back to string ids for configs without literal types', () => {
    expectTypeOf<SolverId>().toEqualTypeOf<string>()
    expectTypeOf<SolverProtocol<{ defaultChainId: number; chains: Record<number, never> }, 'x'>>().toEqualTypeOf<'enigma' | 'rasa'>()
  })
})
