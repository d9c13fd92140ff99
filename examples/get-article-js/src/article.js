// Clean article text from the Markdown of a page's main content: headings and paragraphs
// as plain text, without link targets, images, emphasis marks, code fences, and without the
// chrome pages keep around their articles (menus, "Subscribe", share buttons, copyright
// lines, consent banners). A paragraph is prose when it reads like sentences: enough words,
// ending in sentence punctuation; list items count when they have a few words.

const MIN_WORDS = 5;
const MIN_ITEM_WORDS = 4;
const SENTENCE_END = /[.!?:;"'”’)…]$/;
// Consent and subscription banners read like sentences; they are never the article.
const BOILERPLATE = /\b(we use cookies|uses cookies|cookie (policy|settings|preferences)|accept (all )?cookies|subscribe to our newsletter)\b/i;

function isProse(text, listed) {
  const words = text.split(' ').length;
  if (BOILERPLATE.test(text)) return false;
  return listed ? words >= MIN_ITEM_WORDS : words >= MIN_WORDS && SENTENCE_END.test(text);
}

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
    const listed = /^\s*([-*+]|\d+\.)\s+/.test(block);
    if (listed) {
      for (const item of block.split(/\n(?=\s*(?:[-*+]|\d+\.)\s+)/)) {
        const text = plain(item.replace(/^\s*([-*+]|\d+\.)\s+/, ''));
        if (isProse(text, true)) current.paragraphs.push(text);
      }
      continue;
    }
    const text = plain(block.replace(/^\s*>\s?/gm, ''));
    if (isProse(text, false)) current.paragraphs.push(text);
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
