import { afterEach, expect, it } from 'vitest'
import { createConfig } from './createConfig.js'

// React Native's URL (whatwg-url-without-unicode) is not the platform's: ws: is not a special scheme
// there, so `hostname` is empty for ws:// URLs. Loopback must still be recognised, refusals name the host.

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
