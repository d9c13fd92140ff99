// Runs in the captured page: returns {title, content} for FORMAT ("html", "text" or
// "markdown"). Main content is the first non-empty <main>, <article> or [role=main], else
// <body>; markdown skips navigation, forms and scripts.
(() => {
  const fmt = FORMAT;
  const title = document.title || "";
  if (fmt === "html") return { title, content: document.documentElement.outerHTML };
  const root = ["main", "article", "[role=main]"]
    .map((s) => document.querySelector(s))
    .find((el) => el && el.innerText.trim()) || document.body;
  if (!root) return { title, content: "" };
  if (fmt === "text") return { title, content: root.innerText.trim() };

  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "NAV", "FOOTER", "ASIDE",
    "FORM", "BUTTON", "IFRAME", "svg", "SELECT", "INPUT", "TEXTAREA"]);
  const BLOCK = new Set(["P", "DIV", "SECTION", "ARTICLE", "MAIN", "HEADER", "UL", "OL", "LI",
    "TABLE", "TR", "BLOCKQUOTE", "PRE", "H1", "H2", "H3", "H4", "H5", "H6", "HR", "DL", "DT", "DD"]);
  const inline = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return node.textContent.replace(/\s+/g, " ");
    if (node.nodeType !== Node.ELEMENT_NODE || SKIP.has(node.tagName)) return "";
    if (node.hidden || getComputedStyle(node).display === "none") return "";
    const kids = () => Array.from(node.childNodes).map(inline).join("");
    switch (node.tagName) {
      case "BR": return "\n";
      case "A": {
        const text = kids().trim();
        return node.href && text ? `[${text}](${node.href})` : text;
      }
      case "STRONG": case "B": { const t = kids().trim(); return t ? `**${t}**` : ""; }
      case "EM": case "I": { const t = kids().trim(); return t ? `_${t}_` : ""; }
      case "CODE": return "`" + node.textContent + "`";
      case "IMG": return node.alt ? `![${node.alt}](${node.src})` : "";
      default: return BLOCK.has(node.tagName) ? "\n\n" + block(node) + "\n\n" : kids();
    }
  };
  const block = (node) => {
    const kids = () => Array.from(node.childNodes).map(inline).join("").trim();
    const t = node.tagName;
    if (/^H[1-6]$/.test(t)) return "#".repeat(Number(t[1])) + " " + kids().replace(/\n+/g, " ");
    if (t === "PRE") return "```\n" + node.textContent.replace(/\n$/, "") + "\n```";
    if (t === "HR") return "---";
    if (t === "BLOCKQUOTE") return kids().split("\n").map((l) => "> " + l).join("\n");
    if (t === "UL" || t === "OL") {
      return Array.from(node.children).filter((c) => c.tagName === "LI")
        .map((li, i) => (t === "OL" ? `${i + 1}. ` : "- ") +
          Array.from(li.childNodes).map(inline).join("").trim().replace(/\n+/g, "\n  "))
        .join("\n");
    }
    return kids();
  };
  const md = block(root).replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
  return { title, content: md };
})()
