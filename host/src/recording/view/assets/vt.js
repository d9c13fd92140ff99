// A small terminal renderer for recorded output: a screen of cells fed the bytes a
// session printed (text, cursor moves, erases, scrolling, colours, the alternate screen).
// Sequences it does not know are dropped; titles, clipboard writes and queries do nothing.
// It builds the screen with text nodes only: recorded bytes are never parsed as HTML.
"use strict";

const PALETTE = [
  "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
  "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
];

function color256(n) {
  if (n < 16) return PALETTE[n];
  if (n < 232) {
    const v = [0, 95, 135, 175, 215, 255];
    const i = n - 16;
    return `rgb(${v[Math.floor(i / 36)]},${v[Math.floor(i / 6) % 6]},${v[i % 6]})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}

class VT {
  constructor(cols, rows) {
    this.resize(cols || 80, rows || 24, true);
  }

  blankStyle() {
    return { fg: null, bg: null, b: false, i: false, u: false, inv: false };
  }

  blankRow() {
    const row = [];
    for (let x = 0; x < this.cols; x++) row.push({ ch: " ", st: this.blankStyle() });
    return row;
  }

  resize(cols, rows, reset) {
    this.cols = Math.max(1, Math.min(cols | 0, 1000));
    this.rows = Math.max(1, Math.min(rows | 0, 500));
    if (reset || !this.lines) {
      this.lines = [];
      for (let y = 0; y < this.rows; y++) this.lines.push(this.blankRow());
      this.x = 0; this.y = 0; this.st = this.blankStyle(); this.state = "text"; this.buf = "";
      this.saved = { x: 0, y: 0 }; this.top = 0; this.bottom = this.rows - 1; this.alt = null;
      this.wrapNext = false;
      return;
    }
    const old = this.lines;
    this.lines = [];
    for (let y = 0; y < this.rows; y++) {
      const row = this.blankRow();
      const src = old[old.length - this.rows + y];
      if (src) for (let x = 0; x < Math.min(this.cols, src.length); x++) row[x] = src[x];
      this.lines.push(row);
    }
    this.top = 0; this.bottom = this.rows - 1;
    this.x = Math.min(this.x, this.cols - 1); this.y = Math.min(this.y, this.rows - 1);
  }

  write(text) {
    for (const ch of text) this.put(ch);
  }

  put(ch) {
    const c = ch.codePointAt(0);
    switch (this.state) {
      case "esc": return this.escape(ch);
      case "csi":
        if (c >= 0x40 && c <= 0x7e) { this.state = "text"; this.csi(this.buf, ch); this.buf = ""; }
        else if (this.buf.length < 64) this.buf += ch;
        else { this.state = "text"; this.buf = ""; }
        return;
      case "osc":
        if (c === 7) this.state = "text";
        else if (c === 0x1b) this.state = "osc-esc";
        return;
      case "osc-esc": this.state = ch === "\\" ? "text" : "osc"; return;
      case "charset": this.state = "text"; return;
    }
    if (c === 0x1b) { this.state = "esc"; return; }
    if (c === 0x0d) { this.x = 0; this.wrapNext = false; return; }
    if (c === 0x0a || c === 0x0b || c === 0x0c) { this.lineFeed(); return; }
    if (c === 0x08) { if (this.x > 0) this.x--; this.wrapNext = false; return; }
    if (c === 0x09) { this.x = Math.min(this.cols - 1, (Math.floor(this.x / 8) + 1) * 8); return; }
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) return;
    if (this.wrapNext) { this.x = 0; this.lineFeed(); this.wrapNext = false; }
    this.lines[this.y][this.x] = { ch, st: { ...this.st } };
    if (this.x === this.cols - 1) this.wrapNext = true; else this.x++;
  }

  escape(ch) {
    this.state = "text";
    switch (ch) {
      case "[": this.state = "csi"; this.buf = ""; break;
      case "]": this.state = "osc"; break;
      case "P": case "X": case "^": case "_": this.state = "osc"; break;
      case "(": case ")": case "*": case "+": this.state = "charset"; break;
      case "7": this.saved = { x: this.x, y: this.y }; break;
      case "8": this.x = this.saved.x; this.y = this.saved.y; break;
      case "D": this.lineFeed(); break;
      case "E": this.x = 0; this.lineFeed(); break;
      case "M": if (this.y === this.top) this.scrollDown(1); else if (this.y > 0) this.y--; break;
      case "c": this.resize(this.cols, this.rows, true); break;
    }
  }

  lineFeed() {
    if (this.y === this.bottom) this.scrollUp(1);
    else if (this.y < this.rows - 1) this.y++;
  }

  scrollUp(n) {
    for (let i = 0; i < n; i++) {
      this.lines.splice(this.top, 1);
      this.lines.splice(this.bottom, 0, this.blankRow());
    }
  }

  scrollDown(n) {
    for (let i = 0; i < n; i++) {
      this.lines.splice(this.bottom, 1);
      this.lines.splice(this.top, 0, this.blankRow());
    }
  }

  erase(y, from, to) {
    const row = this.lines[y];
    for (let x = Math.max(0, from); x < Math.min(this.cols, to); x++) row[x] = { ch: " ", st: this.blankStyle() };
  }

  csi(params, final) {
    const priv = params.startsWith("?");
    const nums = (priv ? params.slice(1) : params).split(";").map((p) => parseInt(p, 10));
    const n = (i, d) => (Number.isFinite(nums[i]) && nums[i] > 0 ? nums[i] : d);
    const clampY = (y) => Math.max(0, Math.min(this.rows - 1, y));
    const clampX = (x) => Math.max(0, Math.min(this.cols - 1, x));
    this.wrapNext = false;
    switch (final) {
      case "A": this.y = clampY(this.y - n(0, 1)); break;
      case "B": case "e": this.y = clampY(this.y + n(0, 1)); break;
      case "C": case "a": this.x = clampX(this.x + n(0, 1)); break;
      case "D": this.x = clampX(this.x - n(0, 1)); break;
      case "E": this.x = 0; this.y = clampY(this.y + n(0, 1)); break;
      case "F": this.x = 0; this.y = clampY(this.y - n(0, 1)); break;
      case "G": case "`": this.x = clampX(n(0, 1) - 1); break;
      case "d": this.y = clampY(n(0, 1) - 1); break;
      case "H": case "f": this.y = clampY(n(0, 1) - 1); this.x = clampX(n(1, 1) - 1); break;
      case "J": {
        const mode = nums[0] || 0;
        if (mode === 0) { this.erase(this.y, this.x, this.cols); for (let y = this.y + 1; y < this.rows; y++) this.erase(y, 0, this.cols); }
        else if (mode === 1) { this.erase(this.y, 0, this.x + 1); for (let y = 0; y < this.y; y++) this.erase(y, 0, this.cols); }
        else for (let y = 0; y < this.rows; y++) this.erase(y, 0, this.cols);
        break;
      }
      case "K": {
        const mode = nums[0] || 0;
        if (mode === 0) this.erase(this.y, this.x, this.cols);
        else if (mode === 1) this.erase(this.y, 0, this.x + 1);
        else this.erase(this.y, 0, this.cols);
        break;
      }
      case "X": this.erase(this.y, this.x, this.x + n(0, 1)); break;
      case "P": {
        const row = this.lines[this.y];
        row.splice(this.x, Math.min(n(0, 1), this.cols - this.x));
        while (row.length < this.cols) row.push({ ch: " ", st: this.blankStyle() });
        break;
      }
      case "@": {
        const row = this.lines[this.y];
        for (let i = 0; i < Math.min(n(0, 1), this.cols - this.x); i++) row.splice(this.x, 0, { ch: " ", st: this.blankStyle() });
        row.length = this.cols;
        break;
      }
      case "L": if (this.y >= this.top && this.y <= this.bottom) for (let i = 0; i < n(0, 1); i++) { this.lines.splice(this.bottom, 1); this.lines.splice(this.y, 0, this.blankRow()); } break;
      case "M": if (this.y >= this.top && this.y <= this.bottom) for (let i = 0; i < n(0, 1); i++) { this.lines.splice(this.y, 1); this.lines.splice(this.bottom, 0, this.blankRow()); } break;
      case "S": this.scrollUp(n(0, 1)); break;
      case "T": this.scrollDown(n(0, 1)); break;
      case "r": {
        const top = n(0, 1) - 1, bottom = n(1, this.rows) - 1;
        if (top < bottom && bottom < this.rows) { this.top = top; this.bottom = bottom; this.x = 0; this.y = 0; }
        break;
      }
      case "s": this.saved = { x: this.x, y: this.y }; break;
      case "u": this.x = this.saved.x; this.y = this.saved.y; break;
      case "m": if (!priv) this.sgr(nums); break;
      case "h": case "l":
        if (priv && (nums.includes(1049) || nums.includes(47) || nums.includes(1047))) this.altScreen(final === "h");
        break;
    }
  }

  altScreen(on) {
    if (on && !this.alt) {
      this.alt = { lines: this.lines, x: this.x, y: this.y };
      this.lines = [];
      for (let y = 0; y < this.rows; y++) this.lines.push(this.blankRow());
    } else if (!on && this.alt) {
      if (this.alt.lines.length === this.rows) this.lines = this.alt.lines;
      this.x = this.alt.x; this.y = Math.min(this.alt.y, this.rows - 1); this.alt = null;
    }
  }

  sgr(nums) {
    if (nums.length === 0 || (nums.length === 1 && !Number.isFinite(nums[0]))) nums = [0];
    for (let i = 0; i < nums.length; i++) {
      const p = Number.isFinite(nums[i]) ? nums[i] : 0;
      if (p === 0) this.st = this.blankStyle();
      else if (p === 1) this.st.b = true;
      else if (p === 3) this.st.i = true;
      else if (p === 4) this.st.u = true;
      else if (p === 7) this.st.inv = true;
      else if (p === 22) this.st.b = false;
      else if (p === 23) this.st.i = false;
      else if (p === 24) this.st.u = false;
      else if (p === 27) this.st.inv = false;
      else if (p >= 30 && p <= 37) this.st.fg = PALETTE[p - 30];
      else if (p >= 90 && p <= 97) this.st.fg = PALETTE[p - 90 + 8];
      else if (p === 39) this.st.fg = null;
      else if (p >= 40 && p <= 47) this.st.bg = PALETTE[p - 40];
      else if (p >= 100 && p <= 107) this.st.bg = PALETTE[p - 100 + 8];
      else if (p === 49) this.st.bg = null;
      else if (p === 38 || p === 48) {
        let value = null;
        if (nums[i + 1] === 5 && Number.isFinite(nums[i + 2])) { value = color256(nums[i + 2] & 255); i += 2; }
        else if (nums[i + 1] === 2) { value = `rgb(${nums[i + 2] & 255},${nums[i + 3] & 255},${nums[i + 4] & 255})`; i += 4; }
        if (p === 38) this.st.fg = value; else this.st.bg = value;
      }
    }
  }

  // The screen as plain text, one line a row, trailing blanks cut.
  text() {
    return this.lines.map((row) => row.map((c) => c.ch).join("").replace(/\s+$/, "")).join("\n").replace(/\n+$/, "");
  }

  // Draw into `pre`: one span per run of cells of one style, text nodes only.
  render(pre) {
    const frag = document.createDocumentFragment();
    const same = (a, b) => a.fg === b.fg && a.bg === b.bg && a.b === b.b && a.i === b.i && a.u === b.u && a.inv === b.inv;
    this.lines.forEach((row, y) => {
      let x = 0;
      while (x < row.length) {
        const st = row[x].st;
        const chars = [];
        const start = x;
        while (x < row.length && same(row[x].st, st)) { chars.push(row[x].ch); x++; }
        if (y === this.y && start <= this.x && this.x < x) {
          // The cursor cell gets its own span.
          const at = this.x - start;
          this.span(frag, chars.slice(0, at).join(""), st);
          const cur = this.span(frag, chars[at], st);
          cur.className += " cur";
          this.span(frag, chars.slice(at + 1).join(""), st);
        } else this.span(frag, chars.join(""), st);
      }
      if (y < this.lines.length - 1) frag.appendChild(document.createTextNode("\n"));
    });
    pre.replaceChildren(frag);
  }

  span(frag, text, st) {
    const span = document.createElement("span");
    span.textContent = text;
    const fg = st.inv ? st.bg || "#111" : st.fg;
    const bg = st.inv ? st.fg || "#ddd" : st.bg;
    if (fg) span.style.color = fg;
    if (bg) span.style.backgroundColor = bg;
    span.className = (st.b ? "b " : "") + (st.i ? "i " : "") + (st.u ? "u" : "");
    frag.appendChild(span);
    return span;
  }
}

window.VT = VT;
