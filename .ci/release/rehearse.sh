#!/usr/bin/env bash
# A release, rehearsed: on a scratch copy of the repository, `changeset version` (the packages move
# together), pnpm pack of all eight publishable packages, a check of every packed manifest, then npm
# installs of the tarballs into fresh projects outside the workspace (no links, no pnpm) and a smoke
# of each package against the testkit simulator from its tarball. Needs `pnpm build` first (the
# scratch copy packs the dist the build made).
set -euo pipefail
# The fresh projects resolve the registry as it stood on one date: a package published afterwards (on
# 2026-12-02 one asked for a regjsparser the registry did not have) cannot break a rehearsal of our own
# tarballs. Move the date on deliberately, in a commit of its own, after a green run with the new one.
export npm_config_before="${npm_config_before:-2026-11-20T00:00:00Z}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scratch="$work/repo"
tarballs="$work/tarballs"
mkdir -p "$scratch" "$tarballs"
publishable=(core react vue svelte testkit devtools relay otel)

# 1. A scratch copy of what git tracks (what a clean clone has), plus the dist of each package.
(cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$scratch")
for pkg in "${publishable[@]}"; do cp -r "$root/packages/$pkg/dist" "$scratch/packages/$pkg/dist"; done
cd "$scratch"
"$root/node_modules/.bin/changeset" version > "$work/version.log" 2>&1 || { cat "$work/version.log"; echo "changeset version failed"; exit 1; }
version="$(node -p "require('./packages/core/package.json').version")"
for pkg in "${publishable[@]}"; do
  got="$(node -p "require('./packages/$pkg/package.json').version")"
  [ "$got" = "$version" ] || { echo "changeset version moved @solver-notifications/$pkg to $got, core to $version: they must move together"; exit 1; }
done
echo "changeset version: every package at $version"
# pnpm resolves workspace: ranges from the installed workspace (the store is warm: nothing is downloaded).
pnpm install --offline --frozen-lockfile --ignore-scripts --filter "./packages/*" > "$work/install.log" 2>&1 || { tail -20 "$work/install.log"; exit 1; }
for pkg in "${publishable[@]}"; do (cd "packages/$pkg" && pnpm pack --pack-destination "$tarballs" > /dev/null); done
private="$(node -e "const fs=require('fs');const names=[];for(const d of ['packages','examples'])for(const p of fs.readdirSync(d)){try{const m=JSON.parse(fs.readFileSync(d+'/'+p+'/package.json','utf8'));if(m.private)names.push(m.name)}catch{}}console.log(names.join(','))")"
node "$root/.ci/release/check-tarballs.mjs" "$tarballs" "$version" "$private"

# 2. Core, testkit, relay and otel: Node ESM and CommonJS, TypeScript in four resolutions, Jest, Bun, Deno, the CLIs.
TARBALLS="$tarballs" bash "$root/.ci/consumer/run.sh"

# 3. React, Vue, Svelte and devtools in a fresh project of their own.
ui="$work/ui"
mkdir -p "$ui"
cp "$root/.ci/release/ui/"* "$root/.ci/release/checks.mjs" "$ui/"
tgz() { ls "$tarballs"/solver-notifications-"$1"-*.tgz; }
cat > "$ui/package.json" <<JSON
{ "name": "ui-consumer", "private": true, "type": "module", "dependencies": {
  "@solver-notifications/core": "file:$(tgz core)", "@solver-notifications/testkit": "file:$(tgz testkit)",
  "@solver-notifications/react": "file:$(tgz react)", "@solver-notifications/vue": "file:$(tgz vue)",
  "@solver-notifications/svelte": "file:$(tgz svelte)", "@solver-notifications/devtools": "file:$(tgz devtools)",
  "rxjs": "^7.8.0", "react": "^19.1.0", "react-dom": "^19.1.0", "@tanstack/react-query": "^5.90.0",
  "vue": "^3.5.0", "@tanstack/vue-query": "^5.90.0", "svelte": "^5.57.0", "@tanstack/svelte-query": "^6.0.0",
  "jsdom": "^26.0.0", "happy-dom": "^20.0.0",
  "typescript": "5.9.3", "@types/node": "^20.19.0", "@types/react": "^19.1.0", "@types/react-dom": "^19.1.0" } }
JSON
cd "$ui"
npm install --no-audit --no-fund --loglevel=error > "$work/ui-install.log" 2>&1 || { tail -30 "$work/ui-install.log"; exit 1; }
[ -z "$(find node_modules/@solver-notifications -maxdepth 1 -type l)" ] || { echo "a package was linked, not installed"; exit 1; }
node react.mjs
node react-memory.mjs
node vue.mjs
node --import ./svelte-hooks.mjs svelte.mjs
node devtools.mjs
for mode in "node16 node16" "esnext bundler"; do
  set -- $mode
  npx tsc --noEmit --strict --skipLibCheck false --module "$1" --moduleResolution "$2" --target es2022 --jsx react-jsx --lib es2022,dom --types node types.ts
  npx tsc --noEmit --strict --skipLibCheck true --module "$1" --moduleResolution "$2" --target es2022 --lib es2022,dom --types node types-svelte.ts
  echo "typescript (react, vue, svelte, devtools) module $1, moduleResolution $2: ok"
done
# 4. Runtimes beyond Node and browsers, from the tarballs: Cloudflare Workers in workerd (miniflare) and
# Vercel Edge in edge-runtime, each bundled as its platform's bundler would (export conditions).
rt="$work/runtimes"
mkdir -p "$rt"
cp "$root/.ci/release/runtimes/"* "$root/.ci/release/checks.mjs" "$rt/"
cat > "$rt/package.json" <<JSON
{ "name": "runtimes-consumer", "private": true, "type": "module", "dependencies": {
  "@solver-notifications/core": "file:$(tgz core)", "@solver-notifications/testkit": "file:$(tgz testkit)",
  "rxjs": "^7.8.0", "esbuild": "^0.25.0", "miniflare": "^4.20250901.0", "edge-runtime": "^4.0.0" } }
JSON
cd "$rt"
npm install --no-audit --no-fund --loglevel=error > "$work/runtimes-install.log" 2>&1 || { tail -30 "$work/runtimes-install.log"; exit 1; }
node workers.mjs
node edge.mjs

# 5. React Native: Metro bundles core and the React adapter from the tarballs, the hermesc that ships
# with react-native compiles the bundle, and it runs in a context set up like React Native.
rn="$work/react-native"
mkdir -p "$rn"
cp "$root/.ci/release/react-native/"* "$root/.ci/release/checks.mjs" "$rn/"
cat > "$rn/package.json" <<JSON
{ "name": "react-native-consumer", "private": true, "type": "module", "dependencies": {
  "@solver-notifications/core": "file:$(tgz core)", "@solver-notifications/react": "file:$(tgz react)", "@solver-notifications/testkit": "file:$(tgz testkit)",
  "rxjs": "^7.8.0", "react": "^19.1.1", "@tanstack/react-query": "^5.90.0", "ws": "^8.18.0",
  "react-native": "0.82.1", "@react-native/metro-config": "0.82.1" } }
JSON
cd "$rn"
npm install --no-audit --no-fund --loglevel=error > "$work/react-native-install.log" 2>&1 || { tail -30 "$work/react-native-install.log"; exit 1; }
node smoke.mjs
echo "release rehearsal: all seven packages at $version install from their tarballs and run"
