// URI templates of resource templates: `{name}` matches a non-empty run without `/`,
// `{+name}` a non-empty run that may contain `/` (the same rule as the Rust SDK).

/** The variables of `uri` under `template` (not percent-decoded), or undefined. */
export function matchTemplate(template, uri) {
  const vars = {};
  return matchFrom(template, uri, vars) ? vars : undefined;
}

function matchFrom(template, uri, vars) {
  const open = template.indexOf('{');
  if (open < 0) return template === uri;
  const literal = template.slice(0, open);
  if (!uri.startsWith(literal)) return false;
  uri = uri.slice(literal.length);
  const close = template.indexOf('}', open);
  if (close < 0) return false;
  let name = template.slice(open + 1, close);
  const reserved = name.startsWith('+');
  if (reserved) name = name.slice(1);
  const rest = template.slice(close + 1);
  // Values are non-empty; try the shortest first.
  for (let end = 1; end <= uri.length; end += 1) {
    const value = uri.slice(0, end);
    if (!reserved && value.includes('/')) break;
    if (matchFrom(rest, uri.slice(end), vars)) {
      vars[name] = value;
      return true;
    }
  }
  return false;
}
