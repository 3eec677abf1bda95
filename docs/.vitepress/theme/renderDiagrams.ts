interface Mermaid {
  initialize(config: Record<string, unknown>): void
  render(id: string, text: string): Promise<{ svg: string }>
}

let loading: Promise<Mermaid> | undefined
/** Mermaid's own script (`/mermaid.min.js`, see config.mts), loaded once. */
function loadMermaid(): Promise<Mermaid> {
  loading ??= new Promise<Mermaid>((resolve, reject) => {
    const script = document.createElement('script')
    script.src = `${import.meta.env.BASE_URL}mermaid.min.js`
    script.onload = () => resolve((window as unknown as { mermaid: Mermaid }).mermaid)
    script.onerror = () => {
      loading = undefined
      reject(new Error('mermaid.min.js did not load'))
    }
    document.head.append(script)
  })
  return loading
}

/**
 * Draws every diagram of the page (the `div.mermaid-diagram` the site's markdown makes of a ```mermaid block)
 * as an SVG, in the browser. Mermaid loads on the first page that has one.
 */
export async function renderDiagrams(): Promise<void> {
  if (import.meta.env.SSR) return
  const pending = [...document.querySelectorAll<HTMLElement>('div.mermaid-diagram:not([data-rendered])')]
  if (pending.length === 0) return
  const mermaid = await loadMermaid()
  const dark = document.documentElement.classList.contains('dark')
  // Labels are measured and drawn in the page's own font, so none is clipped.
  const fontFamily = getComputedStyle(document.body).fontFamily
  mermaid.initialize({ startOnLoad: false, theme: dark ? 'dark' : 'neutral', securityLevel: 'strict', fontFamily, themeVariables: { fontFamily } })
  for (const [i, element] of pending.entries()) {
    element.dataset.rendered = 'pending'
    try {
      const { svg } = await mermaid.render(`diagram-${Date.now()}-${i}`, decodeURIComponent(element.dataset.diagram ?? ''))
      element.innerHTML = svg
      element.dataset.rendered = 'svg'
    } catch (error) {
      // A diagram that does not parse says so on the page (and the site test fails on it).
      element.textContent = `diagram error: ${(error as Error)?.message ?? String(error)}`
      element.dataset.rendered = 'error'
    }
  }
}
