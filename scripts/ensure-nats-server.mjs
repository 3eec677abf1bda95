// The relay's tests run against a real nats-server (Debian's package). This puts it on a machine that
// lacks it when it can (root with apt-get, as on CI); elsewhere it says how, and those tests skip.
import { spawnSync } from 'node:child_process'

const has = () => spawnSync('nats-server', ['--version'], { stdio: 'ignore' }).status === 0
if (!has()) {
  const root = process.getuid?.() === 0
  const apt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0
  if (root && apt) {
    console.log('installing nats-server (apt-get) for the relay tests…')
    const run = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
    run(['update', '-qq'])
    run(['install', '-y', '-qq', 'nats-server'])
  }
  if (!has()) {
    console.warn('nats-server is not installed: the relay tests are skipped (Debian: apt-get install -y nats-server).')
    if (process.env.CI) process.exit(1)
  }
}
