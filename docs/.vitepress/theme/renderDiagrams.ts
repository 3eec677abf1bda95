interface Mermaid {
  initialize(config: Record<string, unknown>): void
  render(id: string, text: string, container?: Element): Promise<{ svg: string }>
}

/** The smallest a diagram is drawn, of its own size: its labels stay at 11 px of 16 at least. */
const MIN_SCALE = 0.7

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
  // Labels are measured in the font they are drawn in: a web font still loading measures as the fallback.
  await document.fonts?.ready
  const dark = document.documentElement.classList.contains('dark')
  // Labels are measured and drawn in the page's own font, so none is clipped.
  const fontFamily = getComputedStyle(document.body).fontFamily
  // Sequence messages wrap to the space between their participants, so a diagram fits a column.
  mermaid.initialize({ startOnLoad: false, theme: dark ? 'dark' : 'neutral', securityLevel: 'strict', fontFamily, themeVariables: { fontFamily }, sequence: { wrap: true } })
  for (const [i, element] of pending.entries()) {
    element.dataset.rendered = 'pending'
    // Text laid out without hinting is as wide at every scale: measured at the diagram's own size, a label
    // drawn scaled down to the column would otherwise come out up to a tenth wider than its box.
    element.style.textRendering = 'geometricPrecision'
    try {
      // Measured inside the page's element, under the page's CSS (its line height is taller than
      // mermaid's own): measured elsewhere, a label's box is shorter than the label and clips it.
      const { svg } = await mermaid.render(`diagram-${Date.now()}-${i}`, decodeURIComponent(element.dataset.diagram ?? ''), element)
      element.innerHTML = svg
      // Shrunk to fit a narrow column a wide diagram's text becomes unreadable: it shrinks to 3/4 of its
      // size at most, and what is still wider scrolls inside its own box (never the page).
      const picture = element.querySelector('svg')
      const natural = picture?.viewBox.baseVal?.width ?? 0
      if (picture && natural > 0) picture.style.minWidth = `${Math.ceil(natural * MIN_SCALE)}px`
      element.style.overflowX = 'auto'
      element.dataset.rendered = 'svg'
    } catch (error) {
      // A diagram that does not parse says so on the page (and the site test fails on it).
      element.textContent = `diagram error: ${(error as Error)?.message ?? String(error)}`
      element.dataset.rendered = 'error'
    }
  }
}
