// The default theme, plus what the pages show rather than tell: diagrams drawn from ```mermaid blocks, the
// home page's hero picture, and the playground (a client running in the visitor's browser against an
// in-page simulator).
import { onContentUpdated } from 'vitepress'
import DefaultTheme from 'vitepress/theme'
import { defineAsyncComponent, h } from 'vue'
import HeroStream from './HeroStream.vue'
import { renderDiagrams } from './renderDiagrams'

export default {
  extends: DefaultTheme,
  // The hero's right half shows a stream across a dropped socket (it was empty at desktop widths).
  Layout: () => h(DefaultTheme.Layout, null, { 'home-hero-image': () => h(HeroStream) }),
  enhanceApp({ app }: { app: { component(name: string, component: unknown): void } }) {
    // Loaded only on the page that shows it, and only in the browser (it starts a client).
    app.component(
      'Playground',
      defineAsyncComponent(() => import('./Playground.vue')),
    )
  },
  setup() {
    onContentUpdated(() => void renderDiagrams())
  },
}
