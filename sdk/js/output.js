// Tool results: content blocks (text, image, audio, embedded resource) and structured JSON.

function bytes(data) {
  if (data instanceof Uint8Array) return data;
  if (typeof data === 'string') return new TextEncoder().encode(data);
  return Uint8Array.from(data);
}

/** A content block for `ToolOutput.with`. */
export const Content = {
  text: (text) => ({ tag: 'text', val: String(text) }),
  image: (mimeType, data) => ({ tag: 'image', val: { mimeType, data: bytes(data) } }),
  audio: (mimeType, data) => ({ tag: 'audio', val: { mimeType, data: bytes(data) } }),
  resource: (resource) => ({ tag: 'resource', val: resource }),
};

/** An embedded resource (for `Content.resource` and resource readers). */
export const EmbeddedResource = {
  text: (uri, text, mimeType) => ({ uri, mimeType, body: { tag: 'text', val: String(text) } }),
  blob: (uri, data, mimeType) => ({ uri, mimeType, body: { tag: 'blob', val: bytes(data) } }),
};

/** A successful tool result. */
export class ToolOutput {
  constructor() {
    this.content = [];
    this.structured = undefined;
  }
  /** One text block. */
  static text(text) { return new ToolOutput().with(Content.text(text)); }
  static image(mimeType, data) { return new ToolOutput().with(Content.image(mimeType, data)); }
  static audio(mimeType, data) { return new ToolOutput().with(Content.audio(mimeType, data)); }
  static resource(resource) { return new ToolOutput().with(Content.resource(resource)); }
  /** `value` as structured content, and as pretty JSON text for clients that read only text. */
  static json(value) { return ToolOutput.text(JSON.stringify(value, null, 2)).withStructured(value); }
  /** Appends a content block. */
  with(block) {
    this.content.push(typeof block === 'string' ? Content.text(block) : block);
    return this;
  }
  /** Sets the structured content (a JSON object; must match the tool's output schema). */
  withStructured(value) {
    this.structured = value;
    return this;
  }
}

/** The WIT `tool-output` for what a tool function returned. */
export function intoWit(value) {
  let out;
  if (value instanceof ToolOutput) out = value;
  else if (value === undefined || value === null) out = new ToolOutput();
  else if (typeof value === 'string') out = ToolOutput.text(value);
  else if (typeof value === 'object' && !Array.isArray(value)) out = ToolOutput.json(value);
  else out = ToolOutput.text(JSON.stringify(value));
  return {
    content: out.content,
    structured: out.structured === undefined ? undefined : JSON.stringify(out.structured),
  };
}
