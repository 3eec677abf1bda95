import { afterEach, describe, expect, it } from 'vitest'
import { createConfig } from './createConfig.js'
import { hostOf } from './hostOf.js'

describe('hostOf', () => {
  it.each([
    ['ws://localhost:8080/ws', 'localhost'],
    ['ws://127.0.0.1:9/ws?token=x', '127.0.0.1'],
    ['wss://user:pa:ss@Solver.Example:443/ws', 'solver.example'],
    ['ws://[::1]:80/', '[::1]'],
    ['ws://[::1]/x', '[::1]'],
    ['http://host.example', 'host.example'],
    ['http://host.example#frag', 'host.example'],
    ['not a url', ''],
  ])('%s → %s', (url, host) => expect(hostOf(url)).toBe(host))
})

/** React Native's URL (whatwg-url-without-unicode): for a `ws:` URL `hostname` is empty. */
class ReactNativeLikeURL extends URL {
  override get hostname(): string {
    return this.protocol === 'ws:' || this.protocol === 'wss:' ? '' : super.hostname
  }
}
const PlatformURL = globalThis.URL
afterEach(() => {
  globalThis.URL = PlatformURL
})
const config = (url: string) =>
  createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: 'http://127.0.0.1:9', notifications: { protocol: 'rasa', url } } } } } })

it('under a URL whose hostname is empty for ws: (React Native), loopback ws:// is accepted and a refusal names the host', () => {
  globalThis.URL = ReactNativeLikeURL
  expect(new URL('ws://127.0.0.1:9/ws').hostname).toBe('')
  expect(() => config('ws://127.0.0.1:9/ws')).not.toThrow()
  expect(() => config('ws://localhost:8080/ws')).not.toThrow()
  expect(() => config('ws://[::1]:8080/ws')).not.toThrow()
  expect(() => config('ws://solver.example/ws')).toThrowError(/ws:\/\/ to solver\.example would send account data in clear text/)
})
