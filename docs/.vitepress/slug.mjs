// GitHub's heading anchors (lowercase, punctuation dropped, spaces to dashes), used by the site for its
// own anchors and by `pnpm docs:check` to resolve #anchors: one anchor on GitHub and on the site.
/** @param {string} heading */
export const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
