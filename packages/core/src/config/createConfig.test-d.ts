import { describe, expectTypeOf, it } from 'vitest'
import { createConfig } from './createConfig.js'
import type { ConfigOfRegister, RegisteredConfig } from './Register.js'
import type { NotificationsConfigInput, SolverId, SolverProtocol } from './types.js'

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

describe('Register', () => {
  it('resolves the registered config, or the wide input type when nothing is registered', () => {
    expectTypeOf<SolverId<ConfigOfRegister<{ config: typeof config }>>>().toEqualTypeOf<'alpha' | 'beta' | 'gamma'>()
    expectTypeOf<SolverProtocol<ConfigOfRegister<{ config: typeof config }>, 'beta'>>().toEqualTypeOf<'rasa'>()
    expectTypeOf<ConfigOfRegister<object>>().toEqualTypeOf<NotificationsConfigInput>()
    expectTypeOf<RegisteredConfig>().toEqualTypeOf<NotificationsConfigInput>() // nothing registered in core itself
  })
})
