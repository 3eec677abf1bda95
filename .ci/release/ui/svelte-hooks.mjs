// Compiles .svelte components and .svelte.js rune modules for the server as Node loads them (what a
// bundler's Svelte plugin does), so the smoke runs the adapter exactly as published.
import { register } from 'node:module'

register('./svelte-loader.mjs', import.meta.url)
