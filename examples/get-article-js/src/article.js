// Clean article text from the Markdown of a page's main content: headings and paragraphs
// as plain text, without link targets, images, emphasis marks, code fences or the short
// navigation lines ("Share", "Next »") that pages keep around their articles.

const MIN_WORDS = 4;

/** Markdown inline syntax removed, whitespace collapsed. */
export function plain(markdown) {
  return markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|`)/g, '')
    .replace(/(^|\s)[*_]([^*_]+)[*_](?=\s|$|[.,;:!?])/g, '$1$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * `{ title, sections: [{ heading, paragraphs }], paragraphs, words }` from Markdown.
 * The first level-one heading is the title; `title` (the document's) is the fallback.
 */
export function article(markdown, title) {
  const blocks = markdown.replace(/```[\s\S]*?(```|$)/g, '').split(/\n\s*\n/);
  const sections = [];
  let current = { heading: undefined, paragraphs: [] };
  let heading1;
  for (const raw of blocks) {
    const block = raw.trim();
    if (block === '') continue;
    const h = /^(#{1,6})\s+(.*)$/.exec(block);
    if (h) {
      const text = plain(h[2]);
      if (h[1].length === 1 && heading1 === undefined) {
        heading1 = text;
        continue;
      }
      if (current.heading !== undefined || current.paragraphs.length > 0) sections.push(current);
      current = { heading: text, paragraphs: [] };
      continue;
    }
    // Tables and rules are layout, not prose; list items are kept as sentences.
    if (/^\|.*\|$/m.test(block) || /^(-{3,}|\*{3,})$/.test(block)) continue;
    const lines = block.split('\n').map((line) => plain(line.replace(/^\s*(>|[-*+]|\d+\.)\s+/, '')));
    const text = lines.filter(Boolean).join(' ');
    if (text.split(' ').length < MIN_WORDS) continue;
    current.paragraphs.push(text);
  }
  if (current.heading !== undefined || current.paragraphs.length > 0) sections.push(current);
  const kept = sections.filter((section) => section.paragraphs.length > 0);
  const paragraphs = kept.flatMap((section) => section.paragraphs);
  const words = paragraphs.reduce((n, p) => n + p.split(' ').length, 0);
  return { title: (heading1 || title || '').trim(), sections: kept, paragraphs, words };
}

/** The article as text: the title, then each section's heading and paragraphs. */
export function render(doc) {
  const parts = [];
  if (doc.title) parts.push(doc.title);
  for (const section of doc.sections) {
    if (section.heading) parts.push(`## ${section.heading}`);
    parts.push(...section.paragraphs);
  }
  return parts.join('\n\n');
}
