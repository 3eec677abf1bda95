#!/usr/bin/env bash
# Installs the packed tarballs of core, testkit and relay into a throwaway project and runs what users run:
# Node ESM and CommonJS (subscribe + search against the simulator), TypeScript in four module
# resolutions with skipLibCheck false, Jest (and its default fake timers), and Bun and Deno clients. Needs `pnpm build` first.
set -euo pipefail
# The registry as it stood on one date (see .ci/release/rehearse.sh, which sets the same one).
export npm_config_before="${npm_config_before:-2026-11-20T00:00:00Z}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The release rehearsal (.ci/release/rehearse.sh) hands over the tarballs it packed after `changeset version`.
if [ -n "${TARBALLS:-}" ]; then for pkg in core testkit relay otel; do cp "$TARBALLS"/solver-notifications-"$pkg"-*.tgz "$work/"; done
else for pkg in core testkit relay otel; do (cd "$root/packages/$pkg" && pnpm pack --pack-destination "$work" >/dev/null); done; fi
cp "$root/.ci/consumer/"smoke* "$root/.ci/consumer/types.ts" "$root/.ci/consumer/sim-server.mjs" "$root/.ci/consumer/runtime-client.mjs" "$work/"
cd "$work"
cat > package.json <<JSON
{ "name": "consumer", "private": true, "dependencies": {
  "@solver-notifications/core": "file:$(ls "$work"/solver-notifications-core-*.tgz)",
  "@solver-notifications/testkit": "file:$(ls "$work"/solver-notifications-testkit-*.tgz)",
  "@solver-notifications/relay": "file:$(ls "$work"/solver-notifications-relay-*.tgz)",
  "@solver-notifications/otel": "file:$(ls "$work"/solver-notifications-otel-*.tgz)",
  "@opentelemetry/api": "~1.9.0", "@opentelemetry/sdk-metrics": "^2.0.0", "@opentelemetry/sdk-trace-base": "^2.0.0",
  "rxjs": "^7.8.0", "typescript": "5.9.3", "@types/node": "^20.19.0",
  "jest": "^30.0.0", "jest-environment-jsdom": "^30.0.0", "bun": "^1.3.0", "deno": "^2.5.0" } }
JSON
npm install --no-audit --no-fund --loglevel=error >/dev/null
node smoke.mjs
node smoke.cjs
# OpenTelemetry from the otel tarball, in both module systems: the counters equal the client's stats.
node smoke.otel.mjs
node smoke.otel.cjs
# One copy of core per module system: core and core/query share their modules (one ServiceError class,
# one protocol registry), in CommonJS as in ESM.
node -e "require('@solver-notifications/core'); require('@solver-notifications/core/query'); const copies = Object.keys(require.cache).filter((f) => f.includes('@solver-notifications/core/') && require('fs').readFileSync(f, 'utf8').includes('solver-notifications.ServiceError')); if (copies.length !== 1) { console.error('core loaded ServiceError from', copies); process.exit(1) } console.log('commonjs: core and core/query share one copy of core')"
# Getting started's Node script, exactly as the guide prints it: it must run and exit by itself.
awk '/^\/\/ first-stream.mjs$/{on=1} on&&/^```$/{exit} on{print}' "$root/docs/guide/getting-started.md" > first-stream.mjs
[ -s first-stream.mjs ] || { echo "getting started: the first-stream.mjs block was not found"; exit 1; }
timeout 60 node first-stream.mjs > first-stream.log 2>&1 || { cat first-stream.log; echo "getting started's script failed or did not exit"; exit 1; }
[ "$(grep -c '0x1111' first-stream.log)" = 3 ] || { cat first-stream.log; echo "getting started's script did not print three notifications"; exit 1; }
echo "getting started (first-stream.mjs, as printed): ok"
# The relay: both module systems load it, and its CLI runs and names what is missing.
node --input-type=module -e "import { startRelay, parseAccountKey } from '@solver-notifications/relay'; if (typeof startRelay !== 'function' || parseAccountKey('1.beta.0x1111111111111111111111111111111111111111').chainId !== 1) process.exit(1)"
node -e "const { startRelay } = require('@solver-notifications/relay'); if (typeof startRelay !== 'function') process.exit(1)"
npx solver-relay --help > /dev/null
if NATS_URL= npx solver-relay --config x.json 2>/dev/null; then echo "solver-relay without NATS should fail"; exit 1; fi
# The relay's check against a real nats-server (Debian's, installed by scripts/ensure-nats-server.mjs).
if command -v nats-server >/dev/null 2>&1; then
  natsPort=$((20000 + RANDOM % 20000))
  nats-server -js -a 127.0.0.1 -p "$natsPort" -sd "$work/nats" > nats.log 2>&1 & natsPid=$!
  cat > solvers.json <<JSON
{ "defaultChainId": 1, "chains": { "1": { "defaultSolver": "beta", "solvers": { "beta": { "url": "http://127.0.0.1:9", "notifications": { "protocol": "rasa", "url": "ws://127.0.0.1:9/ws" } } } } } }
JSON
  for _ in $(seq 1 100); do grep -q "Server is ready" nats.log && break; sleep 0.1; done
  npx solver-relay check --config solvers.json --nats "nats://127.0.0.1:$natsPort" > check.log 2>&1 || { cat check.log nats.log; exit 1; }
  kill "$natsPid"
  echo "relay check against nats-server: ok"
else echo "relay check skipped: no nats-server on this machine"; fi
echo "relay (ESM, CJS, CLI): ok"
# The testkit's CLI: its help names every option, and it starts, listens and stops.
npx solver-sim --help | grep -q -- "--protocol"
# The bin npx runs, started directly so the stop signal reaches it (npx does not forward it).
./node_modules/.bin/solver-sim --protocol rasa --port 0 > sim-cli.log 2>&1 & simPid=$!
for _ in $(seq 1 100); do grep -q "wsUrl" sim-cli.log && break; sleep 0.1; done
grep -q "ws://127.0.0.1:" sim-cli.log || { cat sim-cli.log; echo "solver-sim did not start"; exit 1; }
kill "$simPid"; wait "$simPid" 2>/dev/null || true
grep -q "stopped" sim-cli.log || { cat sim-cli.log; echo "solver-sim did not stop"; exit 1; }
echo "testkit CLI (help, start, stop): ok"
for mode in "commonjs node10" "node16 node16" "nodenext nodenext" "esnext bundler"; do
  set -- $mode
  npx tsc --noEmit --strict --skipLibCheck false --module "$1" --moduleResolution "$2" --target es2022 --types node types.ts
  echo "typescript module $1, moduleResolution $2: ok"
done
npx jest --ci --silent smoke.test.cjs 2>&1 | tail -3
# Jest's default fake timers (nextTick and queueMicrotask faked too, as in React Native's Jest) drive a
# client on the in-memory simulator with the *Async clock APIs (docs/guide/testing.md).
npx jest --ci --silent smoke.faketimers.test.cjs 2>&1 | tail -3
# Jest with the jsdom environment, against a simulator in Node (jsdom's WebSocket is the client's).
node sim-server.mjs rasa > urls-jsdom.txt &
server=$!
while [ ! -s urls-jsdom.txt ]; do sleep 0.1; done
SIM_URLS="$(head -1 urls-jsdom.txt)" npx jest --ci --silent smoke.jsdom.test.cjs 2>&1 | tail -3
kill "$server" 2>/dev/null || true
# Bun and Deno (registry packages) as clients of a simulator running in Node.
for runtime in bun deno; do
  for protocol in enigma rasa; do
    node sim-server.mjs "$protocol" > "urls-$runtime-$protocol.txt" &
    server=$!
    while [ ! -s "urls-$runtime-$protocol.txt" ]; do sleep 0.1; done
    if [ "$runtime" = bun ]; then run=(npx bun runtime-client.mjs); else run=(npx deno run -A runtime-client.mjs); fi
    SIM_URLS="$(head -1 "urls-$runtime-$protocol.txt")" SIM_PROTOCOL="$protocol" RUNTIME="$runtime" timeout 60 "${run[@]}"
    kill "$server" 2>/dev/null || true
  done
done
