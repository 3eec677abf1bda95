/**
 * Draws every diagram of the page (the `div.mermaid-diagram` the site's markdown makes of a ```mermaid block)
 * as an SVG, in the browser. Mermaid loads on the first page that has one.
 */
export async function renderDiagrams(): Promise<void> {
  if (import.meta.env.SSR) return
  const pending = [...document.querySelectorAll<HTMLElement>('div.mermaid-diagram:not([data-rendered])')]
  if (pending.length === 0) return
  const { default: mermaid } = await import('mermaid')
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
