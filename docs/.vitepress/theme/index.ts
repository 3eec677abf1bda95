// The default theme, plus what the pages show rather than tell: diagrams drawn from ```mermaid blocks, and
// the playground (a client running in the visitor's browser against an in-page simulator).
import { onContentUpdated } from 'vitepress'
import DefaultTheme from 'vitepress/theme'
import { defineAsyncComponent } from 'vue'
import { renderDiagrams } from './renderDiagrams'

export default {
  extends: DefaultTheme,
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
