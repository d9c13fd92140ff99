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

  const textOf = (el) => clean(el.innerText || el.textContent || '');

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
      return clean(el.getAttribute('title') || el.getAttribute('name') || '');
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
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && Number(tabindex) >= 0 && el.tagName !== 'DIV' ? true : false;
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
    if (aria('aria-expanded') === 'true' || (el.tagName === 'SUMMARY' && el.parentElement && el.parentElement.open)) s.push('expanded');
    if (el.ownerDocument.activeElement === el) s.push('focused');
    if (el.required || aria('aria-required') === 'true') s.push('required');
    if (el.readOnly || aria('aria-readonly') === 'true') s.push('readonly');
    if (rect.bottom < 0 || rect.top > vh || rect.right < 0 || rect.left > vw) s.push('offscreen');
    return s;
  };

  const overlaysOf = (doc, vw, vh) => {
    const found = [];
    const candidates = doc.querySelectorAll('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true], body *');
    const seen = new Set();
    for (const el of candidates) {
      if (seen.has(el) || found.some((o) => o.el.contains(el))) continue;
      seen.add(el);
      const style = getComputedStyle(el);
      const modal = el.matches('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]');
      if (!modal && style.position !== 'fixed' && style.position !== 'sticky') continue;
      if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const area = (Math.min(r.right, vw) - Math.max(r.left, 0)) * (Math.min(r.bottom, vh) - Math.max(r.top, 0));
      const wide = r.width >= vw * 0.6;
      if (!modal && area < vw * vh * 0.15 && !wide) continue;
      const text = labelText(el);
      if (!modal && !el.querySelector('button, a[href], input, [role=button]')) continue;
      let kind = modal ? 'modal' : 'overlay';
      if (/cookie|consent|gdpr|privacy/i.test(text + ' ' + el.id + ' ' + el.className)) kind = 'cookie_banner';
      const heading = el.querySelector('h1, h2, h3, h4, [role=heading]');
      const label = clean(el.getAttribute('aria-label') || (heading && textOf(heading)) || text, 80);
      found.push({ el, kind, label });
      if (found.length >= 5) break;
    }
    return found;
  };

  const TEXT_TAGS = 'h1, h2, h3, h4, h5, h6, p, li, td, th, dt, dd, blockquote, pre, figcaption, label, caption';

  const snapshot = (opts) => {
    const doc = document;
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const overlays = overlaysOf(doc, vw, vh);
    const elements = [];
    const all = doc.body ? doc.body.querySelectorAll('*') : [];
    for (const el of all) {
      const role = roleOf(el);
      const interactive = isInteractive(el, role);
      const isText = !interactive && opts.text && (role === 'heading' || el.matches(TEXT_TAGS));
      if (!interactive && !isText && role !== 'heading') continue;
      if (!interactive && role === 'heading' && !opts.text) continue;
      const rect = el.getBoundingClientRect();
      if (!visible(el, rect) && !(el.labels && hiddenButLabelled(el))) continue;
      if (isText) {
        // Text blocks only when they carry their own text, not a wrapper of other blocks.
        if (el.querySelector(TEXT_TAGS)) continue;
        if (el.closest('a, button, select, label') && el.tagName !== 'LABEL') continue;
        const t = textOf(el);
        if (!t) continue;
      }
      const ov = overlays.findIndex((o) => o.el.contains(el));
      const level = role === 'heading' ? Number(el.tagName[1]) || Number(el.getAttribute('aria-level')) || 2 : 0;
      elements.push({
        handle: idOf(el),
        role: isText && role !== 'heading' ? 'text' : role || 'generic',
        name: isText && role !== 'heading' ? textOf(el).slice(0, 200) : nameOf(el, role),
        value: interactive ? valueOf(el, role) : null,
        attributes: interactive ? attrsOf(el, role) : [],
        states: interactive ? statesOf(el, rect, vw, vh) : (rect.bottom < 0 || rect.top > vh ? ['offscreen'] : []),
        bounds: [rect.left, rect.top, rect.width, rect.height],
        interactive,
        level,
        overlay: ov >= 0 ? ov : null,
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

  const focus = (id, selectAll, secret) => {
    const el = find(id);
    if (!el) return { gone: true };
    // A secret goes only where the page itself hides it, so no screenshot or echo shows it.
    if (secret && !(el.tagName === 'INPUT' && el.type === 'password')) {
      return { error: 'it is not a password field; a secret can only be typed into one' };
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
    const editable = el.isContentEditable || ['INPUT', 'TEXTAREA'].includes(el.tagName);
    if (!editable) return { error: 'it is not a text field' };
    if (el.disabled) return { error: 'it is disabled' };
    if (el.readOnly) return { error: 'it is read-only' };
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

  return { doc, snapshot, point, rectOf, focus, setSecret, selfOrigin, changed, select, checked, hasText, hasSelector, find, idOf,
    focusOnly, domClick, watchDrag, dragStarted, opensWindow };
})
