// Runs in Warden's isolated world of each frame (the page's own scripts cannot see or change
// it). Gives every DOM node it reports a number that stays the same for the life of the node,
// builds the element snapshot, and resolves those numbers back to elements for actions.
// `doc` numbers this document's world; element handles carry it, so a handle from a
// document that was replaced can never reach a node of the new one.
((doc) => {
  const ids = new WeakMap();
  const byId = new Map();
  let next = 1;
  const MASK = '••••';

  // Bumped by every change a snapshot could show: the DOM, a field's value, focus, hover
  // (a CSS menu), scrolling, the window's size, a load, an animation's end. An equal version
  // of the same document gives an equal snapshot, so the host pages through one it has
  // without walking the page again.
  // What no mutation or event tells is read each time: the URL (`history.pushState`) and the
  // fields' values and checks a script set as properties.
  let version = 0;
  const bump = () => { version++; };
  new MutationObserver(bump).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  // On the document, in the capture phase: events that do not bubble (scroll, load, toggle)
  // pass it on their way down.
  for (const type of ['input', 'change', 'focusin', 'focusout', 'mouseover', 'mouseout', 'mousedown', 'mouseup',
    'click', 'keydown', 'keyup', 'pointerdown', 'pointerup', 'touchstart', 'touchend', 'wheel', 'scroll',
    'load', 'error', 'toggle', 'transitionend', 'animationstart', 'animationend', 'drop', 'dragend',
    'fullscreenchange']) {
    document.addEventListener(type, bump, true);
  }
  addEventListener('resize', bump);
  const stamp = () => {
    let h = 0;
    const mix = (s) => {
      for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
      h = (Math.imul(h, 31) + 1) | 0;
    };
    mix(location.href);
    for (const el of document.querySelectorAll('input, textarea, select')) {
      mix(el.value || '');
      mix(`${el.checked ? 1 : 0}${el.indeterminate ? 1 : 0}${el.selectedIndex ?? ''}`);
    }
    return `${version}:${h}`;
  };

  const idOf = (el) => {
    let id = ids.get(el);
    if (id === undefined) {
      id = next++;
      ids.set(el, id);
      byId.set(id, new WeakRef(el));
    }
    return id;
  };

  const find = (id) => {
    const ref = byId.get(id);
    const el = ref && ref.deref();
    if (!el || !el.isConnected) {
      byId.delete(id);
      return null;
    }
    return el;
  };

  const clean = (s, max = 100) => {
    s = (s || '').replace(/\s+/g, ' ').trim();
    return s.length > max ? s.slice(0, max - 1) + '…' : s;
  };

  const INTERACTIVE_ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'switch', 'option', 'combobox', 'textbox', 'searchbox', 'slider',
    'spinbutton', 'treeitem', 'listbox',
  ]);
  const TEXT_INPUTS = new Set(['text', 'email', 'tel', 'url', 'search', 'number', 'date',
    'datetime-local', 'month', 'week', 'time', 'color', '']);

  const roleOf = (el) => {
    const explicit = (el.getAttribute('role') || '').split(' ')[0];
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase();
    switch (tag) {
      case 'a': return el.hasAttribute('href') ? 'link' : null;
      case 'button': return 'button';
      case 'select': return el.multiple ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'summary': return 'button';
      case 'input': {
        const type = (el.getAttribute('type') || 'text').toLowerCase();
        if (type === 'hidden') return null;
        if (type === 'checkbox' || type === 'radio') return type;
        if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
        if (type === 'password') return 'password';
        if (type === 'file') return 'file';
        if (type === 'range') return 'slider';
        if (type === 'search') return 'searchbox';
        return 'textbox';
      }
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'img': return el.getAttribute('alt') ? 'img' : null;
      default:
        if (el.isContentEditable && el.getAttribute('contenteditable') !== null) return 'textbox';
        return null;
    }
  };

  const textOf = (el) => clean(el.innerText || el.textContent || '', 200);

  // A label's own words, without the text of the controls inside it (a <select>'s options).
  const labelText = (label) => {
    const copy = label.cloneNode(true);
    copy.querySelectorAll('select, textarea, input, button, a, [role=button]').forEach((c) => c.remove());
    return clean(copy.textContent || '');
  };

  const nameOf = (el, role) => {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((i) => el.ownerDocument.getElementById(i))
        .filter(Boolean).map(textOf).join(' ');
      if (t) return clean(t);
    }
    const aria = el.getAttribute('aria-label');
    if (aria) return clean(aria);
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (['submit', 'button', 'reset'].includes(type)) return clean(el.value || type);
      if (type === 'image') return clean(el.getAttribute('alt') || 'image');
      if (el.labels && el.labels.length) return clean(Array.from(el.labels).map(labelText).join(' '));
      return clean(el.getAttribute('title') || '');
    }
    if (role === 'img') return clean(el.getAttribute('alt'));
    const t = textOf(el);
    if (t) return t;
    const img = el.querySelector && el.querySelector('img[alt]');
    if (img) return clean(img.getAttribute('alt'));
    return clean(el.getAttribute('title') || '');
  };

  const visible = (el, rect) => {
    if (rect.width === 0 && rect.height === 0 && el.getClientRects().length === 0) return false;
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none';
  };

  // Custom controls hide the real input and style a sibling; the label still works.
  const hiddenButLabelled = (el) => el.labels && Array.from(el.labels).some((l) => {
    const r = l.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  });

  const isInteractive = (el, role) => {
    if (role && INTERACTIVE_ROLES.has(role)) return true;
    if (role === 'password' || role === 'file') return true;
    if (el.hasAttribute('onclick')) return true;
    if (el.getAttribute('draggable') === 'true') return true;
    return focusableContainer(el, role);
  };

  // Reached by the keyboard, but a box of other things: a menu the page made focusable
  // (jQuery UI's autocomplete list) is named by all its items, and a click on it lands on
  // the middle one. It is a control only when nothing inside it is one.
  const CONTAINER_ROLES = new Set(['listbox', 'menu', 'menubar', 'tree', 'tablist', 'grid', 'treegrid']);
  const focusableContainer = (el, role) => {
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && Number(tabindex) >= 0 && el.tagName !== 'DIV'
      && !(role && INTERACTIVE_ROLES.has(role));
  };
  const isContainer = (el, role) => el.tagName !== 'SELECT'
    && ((role && CONTAINER_ROLES.has(role)) || focusableContainer(el, role));

  // Clickable without saying so: the host marks the elements that have a click, mouse or
  // pointer listener of their own (it asks Chromium, which sees the page's listeners); and
  // the outermost element of a `cursor: pointer` area is where a pointer says "click me".
  // Neither counts inside a control (a link's inner <span>) or for a label of a control.
  const NOT_POINTER = 'a[href], button, input, select, textarea, [role=button], [role=link], [role=checkbox], [role=tab], [role=menuitem], [role=option]';
  const clickable = (el, style, ctx) => {
    if (el === document.body || el === document.documentElement) return false;
    // An item of a menu or list the page made focusable is one of its choices.
    if (ctx.container && ctx.container === el.parentElement && el.tagName === 'LI') return true;
    if (el.tagName === 'LABEL' && el.control) return false;
    const marked = globalThis.__wardenClickable;
    if (marked && marked.has(el)) return true;
    if (style.cursor !== 'pointer') return false;
    const parent = el.parentElement;
    if (parent && getComputedStyle(parent).cursor === 'pointer') return false;
    // A pointer area around a real control is that control's.
    return !el.querySelector(NOT_POINTER);
  };

  const valueOf = (el, role) => {
    const tag = el.tagName.toLowerCase();
    if (role === 'password') return el.value ? MASK : '';
    if (el.dataset && el.hasAttribute('data-warden-secret')) return el.value ? MASK : '';
    if (tag === 'select') {
      return clean(Array.from(el.selectedOptions).map((o) => o.label || o.text).join(', '), 200);
    }
    if (tag === 'textarea') return clean(el.value, 200);
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'file') return Array.from(el.files || []).map((f) => f.name).join(', ');
      if (TEXT_INPUTS.has(type) || type === 'range') return clean(el.value, 200);
      return null;
    }
    if (role === 'textbox' && el.isContentEditable) return clean(el.innerText, 200);
    if (['slider', 'spinbutton', 'progressbar', 'scrollbar', 'meter'].includes(role)) {
      const v = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
      if (v !== null) return clean(v, 60);
    }
    return null;
  };

  const attrsOf = (el, role) => {
    const out = [];
    const tag = el.tagName.toLowerCase();
    const ph = el.getAttribute('placeholder');
    if (ph) out.push(['placeholder', clean(ph, 60)]);
    if (role === 'link') {
      const href = el.getAttribute('href') || '';
      if (href && !href.startsWith('javascript:')) out.push(['href', clean(href, 120)]);
      if (el.getAttribute('target') === '_blank') out.push(['target', '_blank']);
    }
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (role === 'textbox' && type !== 'text') out.push(['type', type]);
      if (role === 'file' && el.accept) out.push(['accept', el.accept]);
    }
    if (tag === 'select') {
      const opts = Array.from(el.options).map((o) => clean(o.label || o.text, 40));
      const shown = opts.slice(0, 12).join(' | ');
      out.push(['options', opts.length > 12 ? `${shown} | …(${opts.length} total)` : shown]);
    }
    if (tag === 'textarea') out.push(['multiline', 'true']);
    if (el.getAttribute('draggable') === 'true') out.push(['draggable', 'true']);
    return out;
  };

  const statesOf = (el, rect, vw, vh) => {
    const s = [];
    const aria = (n) => el.getAttribute(n);
    if (el.disabled || aria('aria-disabled') === 'true' || (el.matches && el.matches(':disabled'))) s.push('disabled');
    if (el.indeterminate || aria('aria-checked') === 'mixed') s.push('mixed');
    else if (el.checked || aria('aria-checked') === 'true' || aria('aria-pressed') === 'true') s.push('checked');
    if (aria('aria-selected') === 'true') s.push('selected');
    const list = aria('aria-expanded') === null && el.tagName !== 'SUMMARY' && toggledList(el);
    const expander = list && !textOf(el) ? list : null;
    if (aria('aria-expanded') === 'true' || (el.tagName === 'SUMMARY' && el.parentElement && el.parentElement.open)) s.push('expanded');
    // A nameless expander is expanded while the list it toggles is shown.
    else if (expander && shown(expander) && expander.getClientRects().length) s.push('expanded');
    if (el.ownerDocument.activeElement === el) s.push('focused');
    if (el.required || aria('aria-required') === 'true') s.push('required');
    if (el.readOnly || aria('aria-readonly') === 'true') s.push('readonly');
    if (rect.bottom < 0 || rect.top > vh || rect.right < 0 || rect.left > vw) s.push('offscreen');
    return s;
  };

  // ----------------------------------------------------------------- inferred labels

  // Controls whose missing accessible name the visible text around them can stand for.
  const LABELLED_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio',
    'slider', 'spinbutton', 'password', 'file', 'switch']);
  const LABEL_MAX = 60;

  const inlineDisplay = (d) => d.startsWith('inline') && d !== 'inline-table' || d === 'contents';
  const shown = (el) => !el || el.checkVisibility({ opacityProperty: true, visibilityProperty: true,
    checkOpacity: true, checkVisibilityCSS: true });

  // The short visible text next to `el` in reading order (before it, or after it for check
  // boxes and radios), up to the edge of its block or the next control; null when there is
  // none or it is too long to be a label (a paragraph).
  const besideText = (el, forward) => {
    const tw = el.ownerDocument.createTreeWalker(el.ownerDocument.body,
      NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    tw.currentNode = el;
    const parts = [];
    let steps = 0;
    let home = null;
    for (let n = forward ? tw.nextNode() : tw.previousNode(); n && steps < 40;
      n = forward ? tw.nextNode() : tw.previousNode(), steps++) {
      if (n.nodeType === 3) {
        // Kept with its spaces: words split by inline markup (`"<b>Jerald</b>"`) join as
        // the page shows them, with no space added.
        const t = n.data.replace(/\s+/g, ' ');
        if (!t.trim()) {
          if (parts.length) parts.push(' ');
          continue;
        }
        if (!shown(n.parentElement)) continue;
        if (n.parentElement.closest('select, textarea, script, style, noscript, template')) continue;
        if (n.parentElement.closest('h1, h2, h3, h4, h5, h6, [role=heading], a[href], button, [role=button], [role=link]')) break;
        // A label names its own control; one tied to none names the control beside it.
        const label = n.parentElement.closest('label');
        if (label && label.control && label.control !== el) break;
        // A label is one block's text: stop where another block's begins.
        let b = n.parentElement;
        while (b.parentElement && inlineDisplay(getComputedStyle(b).display)) b = b.parentElement;
        if (home && b !== home) break;
        // ...and that block holds the control or sits right beside it (or its parent does).
        // (After a check box, only a block whose previous sibling holds nothing but it.)
        const beside = (h) => {
          const sib = h && (forward ? h.previousElementSibling : h.nextElementSibling);
          return !!sib && sib.contains(el) && (!forward || !sib.textContent.trim());
        };
        if (!home && !(b.contains(el) || beside(b) || beside(b.parentElement))) break;
        home = b;
        parts.push(t);
        if (clean(parts.join('')).length > LABEL_MAX) return null;
        continue;
      }
      if (n.contains(el)) {
        // Leaving a container of the control backwards.
        if (parts.length && !inlineDisplay(getComputedStyle(n).display)) break;
        continue;
      }
      const role = roleOf(n);
      if (role === 'heading' || isInteractive(n, role) || (n.tagName === 'LABEL' && n.control !== null)) break;
      if (parts.length && !inlineDisplay(getComputedStyle(n).display)) break;
    }
    if (!parts.some((p) => p.trim())) return null;
    const t = clean((forward ? parts : parts.reverse()).join(''));
    return t.replace(/[:*\s]+$/, '') ? t : null;
  };

  // The nested list a nameless control opens and closes: a tree's expand icon is followed,
  // inside the same item, by its name and the list it shows (jQuery treeview, most file
  // trees). Only the next few siblings are looked at: every control of a snapshot asks, and
  // a flat index of thousands of sibling links must not cost a scan each.
  const toggledList = (el) => {
    let s = el.nextElementSibling;
    for (let i = 0; s && i < 3; s = s.nextElementSibling, i++) {
      if (s.matches('ul, ol, [role=group], [role=tree]')) return s;
    }
    return null;
  };

  // What an icon-only control does, as its class or image file says it (`email-trash`,
  // `icons/reply.svg`): a word of this list, or nothing. Arbitrary class names (`css-1x2y3`)
  // name nothing.
  const ICON_WORDS = new Set(['add', 'archive', 'back', 'bookmark', 'cart', 'close', 'collapse', 'copy',
    'delete', 'download', 'edit', 'expand', 'favorite', 'filter', 'flag', 'forward', 'heart', 'help',
    'home', 'like', 'menu', 'minus', 'more', 'next', 'pause', 'play', 'plus', 'prev', 'previous',
    'refresh', 'remove', 'reply', 'retweet', 'save', 'search', 'send', 'settings', 'share', 'sort',
    'star', 'trash', 'upload', 'user']);
  const iconWord = (el) => {
    const img = el.tagName === 'IMG' ? el : el.querySelector && el.querySelector('img');
    const bg = getComputedStyle(el).backgroundImage;
    const sources = [
      ...Array.from(el.classList || []),
      img ? (img.getAttribute('src') || '').split(/[?#]/)[0].split('/').pop().replace(/\.\w+$/, '') : '',
      bg && bg !== 'none' ? bg.replace(/^url\(["']?|["']?\)$/g, '').split(/[?#]/)[0].split('/').pop().replace(/\.\w+$/, '') : '',
    ];
    for (const source of sources) {
      for (const word of source.toLowerCase().split(/[-_\s.]+/)) {
        if (ICON_WORDS.has(word)) return word;
      }
    }
    return null;
  };

  // A name for a nameless control that is no field: an expander is named by the item it
  // opens (the text after it), an icon by what its class or image says.
  const inferControlName = (el) => {
    if (toggledList(el)) {
      const text = besideText(el, true);
      if (text) return [text, 'text'];
    }
    const word = iconWord(el);
    return word ? [word, 'icon'] : null;
  };

  // A name for a control that has none, and where it came from.
  const inferName = (el, role) => {
    const check = role === 'checkbox' || role === 'radio' || role === 'switch';
    const text = check ? besideText(el, true) || besideText(el, false) : besideText(el, false);
    if (text) return [text, 'text'];
    const ph = el.getAttribute('placeholder');
    if (ph && clean(ph)) return [clean(ph), 'placeholder'];
    const attr = el.getAttribute('name');
    if (attr && clean(attr)) return [clean(attr), 'name'];
    return null;
  };

  // ----------------------------------------------------------------- context groups

  // The row, list item, section or card an element belongs to, for browse_find's context.
  const GROUP_TAGS = { TR: 'row', LI: 'item', ARTICLE: 'article', SECTION: 'section', DETAILS: 'section' };
  const GROUP_ROLES = { row: 'row', listitem: 'item', article: 'article', region: 'section', group: 'group' };
  const CARD = /(^|[-_])(card|item|product|result|row|entry|tile|listing|post|record)s?($|[-_])/i;
  const groupOf = (el, cache) => {
    const path = [];
    let found = null;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (cache.has(a)) { found = cache.get(a); break; }
      path.push(a);
      const kind = GROUP_ROLES[a.getAttribute('role')] || GROUP_TAGS[a.tagName]
        || (a.tagName === 'DIV' && Array.from(a.classList).some((c) => CARD.test(c)) ? 'card' : null);
      // A container inside a control (rustdoc's <section> in a <summary>) is part of it: the
      // context is the control's.
      if (kind && !(a.parentElement && a.parentElement.closest('summary, button, [role=button], a[href]'))) {
        found = `${idOf(a)} ${kind}`;
        break;
      }
    }
    for (const a of path) cache.set(a, found);
    return found;
  };

  // ----------------------------------------------------------------- overlays

  const MODAL = 'dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]';

  // An overlay is what covers the page's content or takes its clicks: a modal dialog, or a
  // fixed element that is on top (hit-tested at a grid of points) over content that lies
  // beneath it both now and with the page scrolled to the top. Fixed sidebars and headers
  // the layout leaves room for cover nothing at the top and are not overlays, however big.
  const overlaysOf = (doc, cands, textRuns, controls, vw, vh) => {
    const found = [];
    const sx = window.scrollX;
    const sy = window.scrollY;
    const rects = new Map();
    const rectOf = (el) => {
      let r = rects.get(el);
      if (!r) { r = el.getBoundingClientRect(); rects.set(el, r); }
      return r;
    };
    const textRects = new Map();
    const nodeRects = (node) => {
      let r = textRects.get(node);
      if (!r) {
        const range = doc.createRange();
        range.selectNodeContents(node);
        r = Array.from(range.getClientRects());
        textRects.set(node, r);
      }
      return r;
    };
    const inside = (r, x, y) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
    let tested = 0;
    for (const c of cands) {
      const el = c.el;
      if (found.length >= 5) break;
      if (found.some((o) => o.el.contains(el))) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
      const r = el.getBoundingClientRect();
      const x0 = Math.max(r.left, 0);
      const x1 = Math.min(r.right, vw);
      const y0 = Math.max(r.top, 0);
      const y1 = Math.min(r.bottom, vh);
      if (x1 - x0 < 2 || y1 - y0 < 2) continue;
      const modal = el.matches(MODAL);
      // Small fixed widgets (a chat button) are not worth a warning; an absolutely placed
      // layer has to be big to be more than a dropdown.
      const least = style.position === 'fixed' ? 0.05 : 0.25;
      if (!modal && (x1 - x0) * (y1 - y0) < vw * vh * least) continue;
      // Hit-testing is bounded: a page with dozens of big layers gets the first ones tested.
      if (++tested > 20) break;
      const onTop = [];
      for (let i = 0; i < 8; i++) {
        for (let j = 0; j < 8; j++) {
          const x = x0 + (i + 0.5) * (x1 - x0) / 8;
          const y = y0 + (j + 0.5) * (y1 - y0) / 8;
          const hit = doc.elementFromPoint(x, y);
          if (hit && el.contains(hit)) onTop.push([x, y]);
        }
      }
      if (!onTop.length) continue;
      if (!el.matches(':modal')) {
        // Content outside the candidate under a point, now and (for a fixed candidate over
        // content that scrolls) at scroll position 0.
        const fixed = style.position === 'fixed';
        const under = (x, y, top) => {
          const at = (it) => (top && !it.fixed ? [x - sx, y - sy] : [x, y]);
          for (const ctl of controls) {
            if (el.contains(ctl.el)) continue;
            const [px, py] = at(ctl);
            if (inside(ctl.rect, px, py)) return true;
          }
          for (const run of textRuns()) {
            if (el.contains(run.nodes[0])) continue;
            const [px, py] = at(run);
            for (const n of run.nodes) {
              if (!inside(rectOf(n.parentElement), px, py)) continue;
              if (nodeRects(n).some((t) => inside(t, px, py))) return true;
            }
          }
          return false;
        };
        const scrolled = fixed && (sx !== 0 || sy !== 0);
        const covered = onTop.filter(([x, y]) => under(x, y, false) && (!scrolled || under(x, y, true))).length;
        if (covered < (modal ? 1 : 2)) continue;
      }
      const text = labelText(el);
      let kind = modal || el.querySelector(MODAL) ? 'modal' : 'overlay';
      if (/cookie|consent|gdpr|privacy/i.test(text + ' ' + el.id + ' ' + el.className)) kind = 'cookie_banner';
      const heading = el.querySelector('h1, h2, h3, h4, [role=heading]');
      const label = clean(el.getAttribute('aria-label') || (heading && textOf(heading)) || text, 80);
      found.push({ el, kind, label });
    }
    return found;
  };

  // ----------------------------------------------------------------- the walk

  const NAME_MAX = 200;
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'IFRAME', 'FRAME', 'OBJECT']);
  const NO_TEXT = new Set(['SELECT', 'TEXTAREA', 'OPTION', 'DATALIST', 'svg', 'math', 'CANVAS', 'VIDEO', 'AUDIO']);

  // Text hidden from sight though laid out: screen-reader-only boxes clipped to nothing or
  // moved off the page.
  const clipped = (el, style) => {
    if (style.clip !== 'auto' && /rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)/.test(style.clip)) return true;
    if (style.clipPath === 'inset(50%)') return true;
    const hides = style.overflow !== 'visible';
    const placed = style.position === 'absolute' || style.position === 'fixed';
    if (!hides && !placed) return false;
    const rect = el.getBoundingClientRect();
    if (hides && (rect.width <= 1 || rect.height <= 1)) return true;
    return placed && (rect.right + window.scrollX <= 0 || rect.bottom + window.scrollY <= 0);
  };

  // One pass over the page in reading order: controls, and (with `text`) headings and text
  // runs, each the inline text up to a block's edge merged into one line.
  const walk = (doc, text) => {
    const items = [];
    const runs = [];
    const controls = [];
    const cands = [];
    let run = null;

    const flush = () => {
      if (!run) return;
      const text = clean(run.parts.join(''), 4000).replace(/^\|\s*|\s*\|$/g, '').trim();
      if (text) {
        run.text = text;
        runs.push(run);
        items.push(run);
      }
      run = null;
    };
    const addText = (node, fixed) => {
      if (!node.data.trim() && !run) return;
      if (!run) run = { kind: 'text', parts: [], nodes: [], fixed };
      run.parts.push(node.data);
      run.nodes.push(node);
    };

    const visit = (el, ctx) => {
      if (SKIP.has(el.tagName)) return;
      const style = getComputedStyle(el);
      const role = roleOf(el);
      const declared = isInteractive(el, role);
      // Clickable by its listener or pointer only: it may be a box of controls (a React
      // root holds the page's listeners), so like a container it stays only if none is in it.
      const guessed = !declared && !ctx.inControl && clickable(el, style, ctx);
      const interactive = declared || guessed;
      const boxLike = guessed || (declared && isContainer(el, role));
      if (style.display === 'none' && !(interactive && el.labels && hiddenButLabelled(el))) return;
      const position = style.position;
      const fixed = ctx.fixed || position === 'fixed';
      if (position === 'fixed' || position === 'absolute' || el.tagName === 'DIALOG' || el.hasAttribute('aria-modal')
          || /^(alert)?dialog\b/.test(el.getAttribute('role') || '')) cands.push({ el });
      const display = style.display;
      const cell = display === 'table-cell';
      const block = !cell && !inlineDisplay(display);
      const textHere = ctx.text && !NO_TEXT.has(el.tagName) && el.getAttribute('aria-hidden') !== 'true'
        && style.opacity !== '0' && style.contentVisibility !== 'hidden' && !clipped(el, style);
      if (cell && run) run.parts.push(' | ');
      else if (block || el.tagName === 'BR') flush();
      else if (display !== 'inline' && display !== 'contents' && run) run.parts.push(' ');
      let inner = { text: textHere, fixed, inControl: ctx.inControl };
      let container = null;
      if (interactive) {
        flush();
        const rect = el.getBoundingClientRect();
        if (visible(el, rect) || (el.labels && hiddenButLabelled(el))) {
          let name = nameOf(el, role);
          let from = null;
          if (!name) {
            const inferred = LABELLED_ROLES.has(role) ? inferName(el, role) : inferControlName(el);
            if (inferred) {
              // The words stay text too: a full snapshot repeats all the page says (an
              // instruction above a field, quotes and all), whatever a field borrows.
              [name, from] = inferred;
            }
          }
          const item = { kind: 'control', el, role, name, from, rect, fixed };
          items.push(item);
          controls.push(item);
          if (boxLike) container = { item, controls: controls.length };
        }
        // Its text is its name; only a long one (a clickable card) is read as text too.
        // Inside a container, what is clickable is its own control.
        // A guessed one is read as usual until it is known to be a control (below).
        const long = (el.textContent || '').length > 150;
        inner = {
          text: textHere && (long || guessed),
          fixed,
          inControl: ctx.inControl || !boxLike,
          container: declared && isContainer(el, role) ? el : null,
        };
      } else if (role === 'heading') {
        flush();
        const rect = el.getBoundingClientRect();
        if (textHere && visible(el, rect)) {
          const name = nameOf(el, role);
          if (name) items.push({ kind: 'heading', el, name, rect });
        }
        inner = { text: false, fixed, inControl: ctx.inControl };
      } else if (el.tagName === 'LABEL' && el.control) {
        // A label's words are its control's name.
        inner = { text: false, fixed, inControl: ctx.inControl };
      }
      if (inner.text) inner.visible = style.visibility === 'visible';
      // A closed <details> shows its summary only.
      const closed = el.tagName === 'DETAILS' && !el.open;
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (closed && c.tagName !== 'SUMMARY') continue;
        if (c.nodeType === 1) visit(c, inner);
        else if (c.nodeType === 3 && inner.text && inner.visible) addText(c, fixed);
      }
      if (block || interactive) flush();
      else if (display !== 'inline' && display !== 'contents' && run) run.parts.push(' ');
      // A clickable box around controls is theirs, not one of its own; unless they are
      // icons without words (a mail row's trash and star), when the row's words are its
      // own action: open the mail.
      const wraps = container && controls.length > container.controls;
      const iconsOnly = () => guessed && !!container.item.name
        && controls.slice(container.controls).every((c) => !textOf(c.el));
      if (wraps && !iconsOnly()) {
        items.splice(items.indexOf(container.item), 1);
        controls.splice(container.controls - 1, 1);
      } else if (!wraps && container && guessed && (el.textContent || '').length <= 150) {
        // A control after all: its words are its name.
        items.splice(items.indexOf(container.item) + 1);
      }
    };
    if (doc.body) visit(doc.body, { text, fixed: false, inControl: false });
    flush();
    return { items, runs, controls, cands };
  };

  const snapshot = (opts) => {
    const seen = stamp();
    const doc = document;
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const { items, controls, cands, runs: textRuns } = walk(doc, !!opts.text);
    // The interactive snapshot reads the page's text only to tell whether a fixed element
    // covers some: on pages that have one.
    let runs = opts.text ? textRuns : null;
    const lazyRuns = () => (runs = runs || walk(doc, true).runs);
    const groups = new Map();
    const overlays = overlaysOf(doc, cands, lazyRuns, controls, vw, vh);
    const overlayOf = (node) => {
      const i = overlays.findIndex((o) => o.el.contains(node));
      return i >= 0 ? i : null;
    };
    const elements = [];
    for (const it of items) {
      if (it.kind === 'control') {
        const { el, role, rect } = it;
        const attributes = attrsOf(el, role).filter(([k]) => !(it.from === 'placeholder' && k === 'placeholder'));
        if (it.from) attributes.push(['name-from', it.from]);
        if (opts.text) {
          const g = groupOf(el, groups);
          if (g) attributes.push(['group', g]);
        }
        elements.push({
          handle: idOf(el), role: role || 'generic', name: clean(it.name, NAME_MAX),
          value: valueOf(el, role), attributes, states: statesOf(el, rect, vw, vh),
          bounds: [rect.left, rect.top, rect.width, rect.height], interactive: true, level: 0,
          overlay: overlayOf(el),
        });
        continue;
      }
      if (!opts.text) continue;
      const el = it.kind === 'heading' ? it.el : it.nodes[0].parentElement;
      const rect = it.rect || el.getBoundingClientRect();
      const g = groupOf(it.kind === 'heading' ? el : it.nodes[0], groups);
      elements.push({
        handle: idOf(el),
        role: it.kind === 'heading' ? 'heading' : 'text',
        name: it.kind === 'heading' ? it.name : it.text,
        value: null,
        attributes: g ? [['group', g]] : [],
        states: rect.bottom < 0 || rect.top > vh ? ['offscreen'] : [],
        bounds: [rect.left, rect.top, rect.width, rect.height],
        interactive: false,
        level: it.kind === 'heading' ? Number(el.tagName[1]) || Number(el.getAttribute('aria-level')) || 2 : 0,
        overlay: overlayOf(el),
      });
    }
    const frames = Array.from(doc.querySelectorAll('iframe, frame')).map((f) => {
      const r = f.getBoundingClientRect();
      const cs = getComputedStyle(f);
      return {
        name: f.getAttribute('name') || f.getAttribute('title') || '',
        src: f.getAttribute('src') || '',
        x: r.left + parseFloat(cs.borderLeftWidth || '0') + parseFloat(cs.paddingLeft || '0'),
        y: r.top + parseFloat(cs.borderTopWidth || '0') + parseFloat(cs.paddingTop || '0'),
      };
    });
    const forms = doc.forms.length;
    const password = doc.querySelector('input[type=password]');
    const captcha = !!doc.querySelector('.g-recaptcha, .h-captcha, .cf-turnstile, [data-sitekey], iframe[src*="recaptcha"], iframe[src*="hcaptcha"], iframe[src*="turnstile"]');
    let pageType = null;
    if (password) pageType = 'login';
    else if (doc.querySelector('input[type=search], [role=search]')) pageType = 'search';
    else if (doc.querySelector('article') && textOf(doc.querySelector('article')).length > 500) pageType = 'article';
    else if (forms > 0) pageType = 'form';
    const desc = doc.querySelector('meta[name=description]');
    return {
      meta: {
        url: location.href,
        title: doc.title,
        pageType,
        hasLoginForm: !!password,
        hasCaptcha: captcha,
        formCount: forms,
        description: desc ? clean(desc.getAttribute('content'), 200) : null,
      },
      elements,
      overlays: overlays.map((o) => ({ kind: o.kind, label: o.label })),
      frames,
      version: seen,
    };
  };

  // Scroll the element into view and say where to click it, or why not. A hover needs no
  // enabled element (a disabled button's tooltip is what it is often for).
  const point = (id, force, hover) => {
    let el = find(id);
    if (!el) return { gone: true };
    let r = el.getBoundingClientRect();
    if ((r.width === 0 || r.height === 0) && el.labels && el.labels.length) {
      el = el.labels[0];
      r = el.getBoundingClientRect();
    }
    if (r.width === 0 && r.height === 0) return { error: 'it has no size on screen (hidden)' };
    const inView = r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
    if (!inView) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      r = el.getBoundingClientRect();
    }
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const target = find(id);
    if (!force && !hover && target && (target.disabled || target.getAttribute('aria-disabled') === 'true')) {
      return { error: 'it is disabled' };
    }
    if (!force) {
      const hit = document.elementFromPoint(x, y);
      if (hit && hit !== el && !el.contains(hit) && !hit.contains(el) &&
          !(target && target.labels && Array.from(target.labels).some((l) => l.contains(hit)))) {
        const label = clean(hit.getAttribute('aria-label') || hit.innerText || hit.tagName.toLowerCase(), 60);
        return { error: `it is covered by another element ("${label}")`, covered: true };
      }
    }
    return { x, y, width: r.width, height: r.height };
  };

  const rectOf = (id) => {
    const el = find(id);
    if (!el) return { gone: true };
    el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
    const r = el.getBoundingClientRect();
    return { x: r.left, y: r.top, width: r.width, height: r.height };
  };

  // Why a fill would refuse the element, or null. A secret goes only where the page itself
  // hides it, so no screenshot or echo shows it.
  const fillProblem = (el, secret) => {
    if (secret && !(el.tagName === 'INPUT' && el.type === 'password')) {
      return 'it is not a password field; a secret can only be typed into one';
    }
    if (!(el.isContentEditable || ['INPUT', 'TEXTAREA'].includes(el.tagName))) return 'it is not a text field';
    if (el.disabled) return 'it is disabled';
    if (el.readOnly) return 'it is read-only';
    return null;
  };

  // A batch of fields is checked with this before the first is filled, so a bad field
  // changes nothing.
  const fillable = (id, secret) => {
    const el = find(id);
    if (!el) return { gone: true };
    const why = fillProblem(el, secret);
    return why ? { error: why } : { ok: true };
  };

  const focus = (id, selectAll, secret) => {
    const el = find(id);
    if (!el) return { gone: true };
    if (secret && !(el.tagName === 'INPUT' && el.type === 'password')) {
      return { error: fillProblem(el, secret) };
    }
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    el.focus();
    if (selectAll) {
      if (typeof el.select === 'function' && el.tagName !== 'SELECT') el.select();
      else if (el.isContentEditable) {
        const range = document.createRange();
        range.selectNodeContents(el);
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      }
    }
    const why = fillProblem(el, secret);
    if (why) return { error: why };
    return { ok: true, focused: el.ownerDocument.activeElement === el };
  };

  // A secret is set on the field itself from this isolated world (whose setters page script
  // cannot replace), not typed as keystrokes a focus change could send to another frame, and
  // only while the field's document is still of the origin the host checked.
  const setSecret = (id, value, origin) => {
    const el = find(id);
    if (!el) return { gone: true };
    if (location.origin !== origin || self.origin !== origin) {
      return { error: `its page is now ${self.origin} (${location.origin}), not ${origin}; take a new snapshot` };
    }
    if (!(el.tagName === 'INPUT' && el.type === 'password')) {
      return { error: 'it is not a password field; a secret can only be typed into one' };
    }
    el.value = value;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
    return { ok: true };
  };

  // The document's security origin as the browser holds it ("null" when opaque: sandboxed,
  // data:), read in this world, whose globals page script cannot touch.
  const selfOrigin = () => self.origin;

  const changed = (id, secret) => {
    const el = find(id);
    if (!el) return { gone: true };
    if (secret) el.setAttribute('data-warden-secret', '');
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true };
  };

  const select = (id, wanted) => {
    const el = find(id);
    if (!el) return { gone: true };
    if (el.tagName !== 'SELECT') return { error: 'it is not a <select>' };
    if (el.disabled) return { error: 'it is disabled' };
    const opts = Array.from(el.options);
    const picked = [];
    for (const w of wanted) {
      const o = opts.find((o) => o.value === w) || opts.find((o) => clean(o.label || o.text) === clean(w))
        || opts.find((o) => clean(o.label || o.text).toLowerCase() === clean(w).toLowerCase());
      if (!o) return { error: `it has no option "${w}" (options: ${opts.map((o) => clean(o.label || o.text, 40)).slice(0, 20).join(' | ')})` };
      picked.push(o);
    }
    if (!el.multiple && picked.length > 1) return { error: 'it allows one option only' };
    for (const o of opts) o.selected = picked.includes(o);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, values: Array.from(el.selectedOptions).map((o) => o.value) };
  };

  const checked = (id) => {
    const el = find(id);
    if (!el) return { gone: true };
    const aria = el.getAttribute('aria-checked');
    return { checked: el.checked === true || aria === 'true' };
  };

  const hasText = (t) => !!document.body && (document.body.innerText || '').includes(t);
  const hasSelector = (s) => !!document.querySelector(s);

  // Focus any element that can take the keyboard focus (not only text fields).
  const focusOnly = (id) => {
    const el = find(id);
    if (!el) return { gone: true };
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    el.focus({ preventScroll: true });
    const active = el.ownerDocument.activeElement;
    if (active !== el && !el.contains(active)) return { error: 'it cannot take the keyboard focus' };
    return { ok: true };
  };

  // A click on the element itself, whatever covers it and whether or not it looks enabled.
  const domClick = (id) => {
    const el = find(id);
    if (!el) return { gone: true };
    el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
    if (typeof el.click === 'function') el.click();
    else el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, composed: true }));
    return { ok: true };
  };

  // Whether activating the element opens a new window: a link or a form submit aimed at
  // _blank, or a link clicked with a modifier key or the middle button.
  const opensWindow = (id, modified) => {
    const el = find(id);
    if (!el) return false;
    const blank = (t) => (t || '').toLowerCase() === '_blank';
    const base = document.querySelector('base[target]');
    const link = el.closest('a[href], area[href]');
    if (link) return modified || blank(link.getAttribute('target') || (base && base.getAttribute('target')));
    const submit = el.matches('button:not([type]), button[type=submit], input[type=submit], input[type=image]');
    if (submit && el.form) return blank(el.getAttribute('formtarget') || el.form.getAttribute('target'));
    return false;
  };

  // Whether the page starts a native drag (a dragstart it does not cancel) during a drag.
  let dragWatch = null;
  const watchDrag = () => {
    if (dragWatch) window.removeEventListener('dragstart', dragWatch.listener, true);
    const w = { event: null };
    w.listener = (e) => { w.event = e; };
    window.addEventListener('dragstart', w.listener, true);
    dragWatch = w;
    return { ok: true };
  };
  const dragStarted = (end) => {
    const w = dragWatch;
    if (!w) return false;
    if (end) {
      window.removeEventListener('dragstart', w.listener, true);
      dragWatch = null;
    }
    return !!(w.event && !w.event.defaultPrevented);
  };

  // Set-of-mark labels for a screenshot: each mark is [x, y, width, height, label] in the
  // viewport's CSS pixels. They are drawn in a closed shadow root the page cannot reach,
  // above everything, and removed right after the screenshot.
  let markLayer = null;
  const showMarks = (marks) => {
    hideMarks();
    const host = document.createElement('warden-marks');
    const root = host.attachShadow({ mode: 'closed' });
    const sx = window.scrollX;
    const sy = window.scrollY;
    // The tag sits in the box's top left corner, so it cannot be read as the neighbour's.
    const boxes = marks.map(([x, y, w, h, label]) => {
      const at = `left:${x + sx}px;top:${y + sy}px`;
      return `<div class=b style="${at};width:${w}px;height:${h}px"></div>`
        + `<div class=l style="${at}">${label.replace(/[^@\w]/g, '')}</div>`;
    }).join('');
    root.innerHTML = `<style>
      :host{all:initial;position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none}
      .b{position:absolute;box-sizing:border-box;border:2px solid #e0218a}
      .l{position:absolute;font:bold 11px/13px monospace;color:#fff;background:#e0218a;padding:0 2px;white-space:nowrap}
    </style>${boxes}`;
    document.documentElement.appendChild(host);
    markLayer = host;
    return { ok: true, shown: marks.length };
  };
  const hideMarks = () => {
    if (markLayer) markLayer.remove();
    markLayer = null;
    return { ok: true };
  };

  // The numbers the host gave this document's elements when it read the page without the
  // browser (`static_page/`): number N is the Nth element in document order. Each is given
  // only to an element the host's fingerprint proves to be the one it numbered (its name, its
  // parent's number, its place among its parent's elements, a hash of its attributes and
  // first words: `static_page/parse/identity.rs` computes the same), and the document must
  // have as many elements as the host read; one mismatch and no number is given, so a ref
  // of the host's snapshot fails as stale rather than reach a neighbour. Called before any
  // other, so no number is taken yet; every number named stays unused by later ones.
  const TEXT_UNITS = 64;
  const UNSTABLE = new Set(['nonce']);
  const fingerprint = (el) => {
    let h = 0;
    const mix = (s) => {
      for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
      h = (Math.imul(h, 31) + 1) | 0;
    };
    for (const a of el.attributes) {
      if (UNSTABLE.has(a.name)) continue;
      mix(a.name);
      mix(a.value);
    }
    let text = '';
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    while (text.length < TEXT_UNITS && walker.nextNode()) text += walker.currentNode.data;
    mix(text.slice(0, TEXT_UNITS));
    return h;
  };
  const adopt = (count, nodes) => {
    for (const [id] of nodes) if (id >= next) next = id + 1;
    const all = document.getElementsByTagName('*');
    if (all.length !== count) {
      return { taken: 0, why: `it has ${all.length} elements where the host read ${count}` };
    }
    const found = [];
    for (const [id, name, parent, index, print] of nodes) {
      const el = all[id - 1];
      if (!el || ids.has(el) || byId.has(id)) return { taken: 0, why: `element ${id} is taken` };
      let at = 0;
      for (let s = el.previousElementSibling; s; s = s.previousElementSibling) at++;
      const up = parent === 0 ? null : all[parent - 1];
      if (el.localName !== name || el.parentElement !== up || at !== index || fingerprint(el) !== print) {
        return { taken: 0, why: `element ${id} is not the <${name}> the host read` };
      }
      found.push([id, el]);
    }
    for (const [id, el] of found) {
      ids.set(el, id);
      byId.set(id, new WeakRef(el));
    }
    return { taken: found.length };
  };

  return { doc, snapshot, stamp, adopt, point, rectOf, focus, fillable, setSecret, selfOrigin, changed, select, checked, hasText, hasSelector, find, idOf,
    focusOnly, domClick, watchDrag, dragStarted, opensWindow, showMarks, hideMarks };
})
