import { describe, expect, it } from 'vitest'
import { ServiceError } from '../errors/ServiceError.js'
import { createConfig } from './createConfig.js'
import type { NotificationsConfigInput } from './types.js'

const valid = {
  defaultChainId: 42161,
  chains: {
    42161: {
      defaultSolver: 'alpha',
      solvers: {
        alpha: { notifications: { protocol: 'enigma', url: 'wss://a.example/ws/v1/subscribe', channel: 'Arbitrum_Solver_Production', searchUrl: 'https://a.example/notification' } },
        beta: { url: 'https://b.example', notifications: { protocol: 'rasa', url: 'wss://b.example/ws/position-state-ws3' } },
      },
    },
    8453: { defaultSolver: 'gamma', solvers: { gamma: { notifications: { protocol: 'rasa', url: 'ws://127.0.0.1:9000/ws' } } } },
  },
} as const satisfies NotificationsConfigInput

function invalid(input: unknown): ServiceError {
  try {
    createConfig(input as NotificationsConfigInput)
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError)
    expect((error as ServiceError).code).toBe('INVALID_CONFIG')
    return error as ServiceError
  }
  throw new Error('expected createConfig to throw')
}

const patch = (solver: Record<string, unknown>): NotificationsConfigInput => ({
  ...valid,
  chains: { ...valid.chains, 42161: { ...valid.chains[42161], solvers: { ...valid.chains[42161].solvers, beta: solver as never } } },
})

describe('createConfig', () => {
  it('resolves solvers with chain and solver defaults', () => {
    const config = createConfig(valid)
    expect(config.getSolver()).toEqual({ chainId: 42161, solverId: 'alpha', url: undefined, notifications: valid.chains[42161].solvers.alpha.notifications })
    expect(config.getSolver({ solverId: 'beta' })).toMatchObject({ chainId: 42161, solverId: 'beta', url: 'https://b.example' })
    expect(config.getSolver({ chainId: 8453 })).toMatchObject({ chainId: 8453, solverId: 'gamma' })
  })

  it('throws UNKNOWN_CHAIN / UNKNOWN_SOLVER naming what is configured', () => {
    const config = createConfig(valid)
    expect(() => config.getSolver({ chainId: 1 })).toThrowError(expect.objectContaining({ code: 'UNKNOWN_CHAIN', message: expect.stringContaining('8453, 42161') }))
    expect(() => config.getSolver({ solverId: 'zeta' })).toThrowError(expect.objectContaining({ code: 'UNKNOWN_SOLVER', message: expect.stringContaining('alpha, beta') }))
    expect(() => config.getSolver({ solverId: 'toString' })).toThrowError(expect.objectContaining({ code: 'UNKNOWN_SOLVER' }))
  })

  it('names the exact path of a bad notifications url', () => {
    const error = invalid(patch({ url: 'https://b.example', notifications: { protocol: 'rasa', url: 'https://b.example/ws' } }))
    expect(error.message).toContain('chains.42161.solvers.beta.notifications.url: expected a ws:// or wss:// URL')
  })

  it('rejects an enigma solver without channel, with the path', () => {
    const error = invalid(patch({ notifications: { protocol: 'enigma', url: 'wss://x.example/ws' } }))
    expect(error.message).toContain('chains.42161.solvers.beta.notifications.channel')
  })

  it('rejects an unknown protocol', () => {
    expect(invalid(patch({ notifications: { protocol: 'other', url: 'wss://x.example' } })).message).toContain('chains.42161.solvers.beta.notifications')
  })

  it('rejects a defaultSolver that is not configured and a defaultChainId that is not configured', () => {
    const error = invalid({ defaultChainId: 10, chains: { 42161: { ...valid.chains[42161], defaultSolver: 'nope' } } })
    expect(error.message).toContain('defaultChainId: 10 is not in chains')
    expect(error.message).toContain('chains.42161.defaultSolver: "nope" is not in solvers (configured: alpha, beta)')
  })

  it('rejects clear-text transport to non-loopback hosts unless allowed', () => {
    const bad = patch({ url: 'http://b.example', notifications: { protocol: 'rasa', url: 'ws://b.example/ws' } })
    const error = invalid(bad)
    expect(error.message).toContain('chains.42161.solvers.beta.notifications.url: ws:// to b.example would send account data in clear text')
    expect(error.message).toContain('chains.42161.solvers.beta.url: http:// to b.example')
    expect(createConfig({ ...bad, allowInsecureTransport: true }).getSolver({ solverId: 'beta' }).url).toBe('http://b.example')
  })

  it.each(['ws://localhost:1/x', 'ws://127.0.0.1:1/x', 'ws://127.8.9.10/x', 'ws://[::1]:8080/x'])('accepts loopback %s in clear text', (url) => {
    expect(createConfig(patch({ notifications: { protocol: 'rasa', url } })).getSolver({ solverId: 'beta' }).notifications.url).toBe(url)
  })

  it.each(['ws://evil.localhost/x', 'ws://a.b.localhost:1/x', 'ws://localhost.example/x', 'ws://127.0.0.1.example/x'])(
    'rejects %s in clear text: only localhost, 127.0.0.0/8 and [::1] are loopback (names under .localhost go through DNS)',
    (url) => {
      expect(invalid(patch({ notifications: { protocol: 'rasa', url } })).message).toContain('would send account data in clear text')
    },
  )

  it('rejects wrong types at their path and non-URLs', () => {
    expect(invalid({ ...valid, defaultChainId: '42161' }).message).toContain('defaultChainId: expected a chain id')
    expect(invalid(patch({ notifications: { protocol: 'rasa', url: 'not a url' } })).message).toContain('is not an absolute URL')
    expect(invalid(null).message).toContain('(root)')
    expect(invalid({ defaultChainId: 1, chains: {} }).message).toContain('chains: configure at least one chain')
  })

  it('lists every problem at once, each with its path, what was expected and what was given, also on error.issues', () => {
    const error = invalid({
      defaultChainId: 42161,
      chains: {
        42161: {
          defaultSolver: 'alpha',
          solvers: {
            alpha: { notifications: { protocol: 'enigmaa', url: 'wss://a.example/ws', channel: 'c' } },
            beta: { url: 'https://b.example', notifications: { protocol: 'rasa', url: 'https://b.example/ws' } },
          },
        },
        8453: { defaultSolver: 'gamma', solvers: { gamma: { notifications: { protocol: 'rasa', url: 5 } } } },
      },
    }) as ServiceError & { issues: Array<{ path: string; message: string }> }
    expect(error.issues.map((i) => i.path)).toEqual([
      'chains.8453.solvers.gamma.notifications.url',
      'chains.42161.solvers.alpha.notifications.protocol',
      'chains.42161.solvers.beta.notifications.url',
    ])
    expect(error.issues[0]!.message).toBe('expected a ws:// or wss:// URL (a string), got 5')
    expect(error.issues[1]!.message).toBe('expected "enigma" or "rasa", got "enigmaa"')
    expect(error.issues[2]!.message).toBe('expected a ws:// or wss:// URL, got "https://b.example/ws"')
    for (const issue of error.issues) expect(error.message).toContain(`${issue.path}: ${issue.message}`)
    expect(error.message).toContain('3 problems')
  })

  it.each([
    ['chains keyed by name', { defaultChainId: 42161, chains: { arbitrum: valid.chains[42161] } }, 'chains.arbitrum', 'a chain id (a positive integer)'],
    ['a solver that is not an object', patch('https://b.example' as never), 'chains.42161.solvers.beta', 'expected an object'],
    ['solvers that are an array', { defaultChainId: 1, chains: { 1: { defaultSolver: 'a', solvers: [] } } }, 'chains.1.solvers', 'expected an object of solvers keyed by solver id, got an array'],
    ['notifications missing', patch({ url: 'https://b.example' }), 'chains.42161.solvers.beta.notifications', 'got undefined'],
    ['chains that are a string', { defaultChainId: 1, chains: 'x' }, 'chains', 'got "x"'],
    ['headers that are not strings', patch({ headers: { 'App-Name': 5 }, notifications: { protocol: 'rasa', url: 'wss://b.example/ws' } }), 'chains.42161.solvers.beta.headers.App-Name', 'got 5'],
  ])('%s is INVALID_CONFIG naming the path, never a TypeError', (_name, input, path, message) => {
    const error = invalid(input) as ServiceError & { issues: Array<{ path: string; message: string }> }
    const issue = error.issues.find((i) => i.path === path)
    expect(issue, JSON.stringify(error.issues)).toBeDefined()
    expect(issue!.message).toContain(message)
  })
})
