//! Which text a response's bytes are, as Chromium decodes them, when the host can know it for
//! certain. The HTML standard's order (as Chromium follows it): a byte order mark, then the
//! `Content-Type` header's charset, then a `<meta>` declaration in the document's first bytes
//! (Chromium's own scan reads on while the document is in its head), then Chromium's encoding
//! detector. The host reads a page only when the answer is certainly UTF-8, or when the bytes
//! are plain ASCII that every encoding Chromium could pick decodes alike; anything else
//! (another charset, UTF-16, a declaration the two scans could read differently, bytes the
//! detector would guess at) goes to the browser, which decodes every encoding itself.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

/// How far the standard's prescan looks for a `<meta>` declaration.
const PRESCAN: usize = 1024;

/// Why the host does not decode a document itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotCertain {
    #[error("it is UTF-16")]
    Utf16,
    #[error("its charset is {0}")]
    Charset(String),
    #[error("its encoding is not declared and its text is not plain ASCII")]
    Undeclared,
    #[error("its encoding declaration is not one the host reads for certain")]
    Declaration,
    #[error("it is not valid UTF-8")]
    Invalid,
}

/// The document's text, decoded as Chromium decodes it.
pub fn decode<'a>(charset: Option<&str>, body: &'a [u8]) -> Result<&'a str, NotCertain> {
    let text = |bytes: &'a [u8]| std::str::from_utf8(bytes).map_err(|_| NotCertain::Invalid);
    if let Some(rest) = body.strip_prefix(b"\xEF\xBB\xBF") {
        return text(rest);
    }
    if body.starts_with(b"\xFE\xFF") || body.starts_with(b"\xFF\xFE") {
        return Err(NotCertain::Utf16);
    }
    let ascii = plain_ascii(body);
    if let Some(label) = charset {
        return match Encoding::for_label(label.as_bytes()) {
            Some(e) if e == UTF_8 => text(body),
            // Any ASCII-compatible encoding reads plain ASCII as UTF-8 does.
            Some(e) if ascii && alike_on_ascii(e) => text(body),
            _ => Err(NotCertain::Charset(label.to_string())),
        };
    }
    // Chromium honours an XML declaration's encoding in an HTML document too.
    if body.trim_ascii_start().starts_with(b"<?xml") && !ascii {
        return Err(NotCertain::Declaration);
    }
    let declared = declarations(body);
    if ascii {
        // Whichever declaration (or guess) Chromium takes, plain ASCII reads the same, if
        // every declaration names an encoding that keeps ASCII as it is.
        return if declared
            .iter()
            .all(|d| d.encoding.is_some_and(alike_on_ascii))
        {
            text(body)
        } else {
            Err(NotCertain::Declaration)
        };
    }
    match declared.first() {
        // The first declaration, in the first bytes after nothing but the document's opening
        // tags, is the one both the standard's prescan and Chromium's tokenizing scan find.
        Some(first)
            if first.at < PRESCAN
                && first.encoding == Some(UTF_8)
                && simple_prefix(&body[..first.at])
                && declared.iter().all(|d| d.encoding == Some(UTF_8)) =>
        {
            text(body)
        }
        Some(_) => Err(NotCertain::Declaration),
        None => Err(NotCertain::Undeclared),
    }
}

/// Bytes every encoding Chromium may pick for an HTML document decodes as ASCII: no byte
/// over 0x7F, and none of NUL and the ISO-2022 shift and escape bytes.
fn plain_ascii(body: &[u8]) -> bool {
    body.iter()
        .all(|&b| b < 0x80 && !matches!(b, 0x00 | 0x0E | 0x0F | 0x1B))
}

/// Does `e` decode plain ASCII as ASCII? (Not UTF-16, ISO-2022-JP or the replacement
/// encoding a dangerous label maps to.)
fn alike_on_ascii(e: &'static Encoding) -> bool {
    e.is_ascii_compatible() || e == UTF_16BE || e == UTF_16LE
}

/// A `<meta>` encoding declaration found by the standard's prescan.
struct Declared {
    /// Where its `<meta` starts.
    at: usize,
    /// What it names, as the prescan reads it (`None`: no encoding of that name).
    encoding: Option<&'static Encoding>,
}

/// Every `<meta>` declaration the standard's prescan algorithm finds, read on to the end of
/// the document instead of stopping at the first or after 1024 bytes.
fn declarations(b: &[u8]) -> Vec<Declared> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            // To the first `-->` whose `>` comes after the `<` (`<!-->` is a comment).
            i = match find(&b[i + 2..], b"-->") {
                Some(at) => i + 2 + at + 3,
                None => b.len(),
            };
        } else if starts_ci(rest, b"<meta") && rest.get(5).is_some_and(|&c| space(c) || c == b'/') {
            let at = i;
            i += 5;
            let (end, declared) = meta(b, i);
            i = end;
            if let Some(encoding) = declared {
                found.push(Declared { at, encoding });
            }
        } else if rest.first() == Some(&b'<')
            && (rest.get(1).is_some_and(u8::is_ascii_alphabetic)
                || (rest.get(1) == Some(&b'/') && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            i += 1;
            while i < b.len() && !space(b[i]) && b[i] != b'>' {
                i += 1;
            }
            while let Some((end, _)) = attribute(b, i) {
                i = end;
            }
            i += 1;
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            i = find(rest, b">").map_or(b.len(), |at| i + at + 1);
        } else {
            i += 1;
        }
    }
    found
}

/// A `<meta` tag's attributes from `i`: where the tag ends, and the encoding it declares
/// (`Some(None)`: a declaration naming no encoding), as the prescan reads them.
fn meta(b: &[u8], mut i: usize) -> (usize, Option<Option<&'static Encoding>>) {
    let mut names: Vec<Vec<u8>> = Vec::new();
    let (mut got_pragma, mut need_pragma, mut charset) = (false, None, None);
    while let Some((end, (name, value))) = attribute(b, i) {
        i = end;
        if names.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" if value == b"content-type" => got_pragma = true,
            b"content" if charset.is_none() => {
                if let Some(label) = charset_in(&value) {
                    charset = Some(Encoding::for_label(&label));
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Some(Encoding::for_label(&value));
                need_pragma = Some(false);
            }
            _ => {}
        }
        names.push(name);
    }
    let declared = match need_pragma {
        None => None,
        Some(true) if !got_pragma => None,
        Some(_) => charset.map(|e| {
            e.map(|e| {
                if e == UTF_16BE || e == UTF_16LE {
                    UTF_8
                } else if e == X_USER_DEFINED {
                    WINDOWS_1252
                } else {
                    e
                }
            })
        }),
    };
    (i + 1, declared)
}

/// An attribute's name and value, lowercased, as the prescan reads them.
type Attribute = (Vec<u8>, Vec<u8>);

/// The prescan's "get an attribute" from `i`: where it ends, and the attribute, or `None` at
/// the tag's end.
fn attribute(b: &[u8], mut i: usize) -> Option<(usize, Attribute)> {
    while i < b.len() && (space(b[i]) || b[i] == b'/') {
        i += 1;
    }
    if i >= b.len() || b[i] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    // The first byte is part of the name even if it is `=`.
    name.push(b[i].to_ascii_lowercase());
    i += 1;
    while i < b.len() && !space(b[i]) && !matches!(b[i], b'=' | b'/' | b'>') {
        name.push(b[i].to_ascii_lowercase());
        i += 1;
    }
    while i < b.len() && space(b[i]) {
        i += 1;
    }
    if b.get(i) != Some(&b'=') {
        return Some((i, (name, Vec::new())));
    }
    i += 1;
    while i < b.len() && space(b[i]) {
        i += 1;
    }
    let mut value = Vec::new();
    match b.get(i) {
        Some(&q @ (b'"' | b'\'')) => {
            i += 1;
            while i < b.len() && b[i] != q {
                value.push(b[i].to_ascii_lowercase());
                i += 1;
            }
            i += 1;
        }
        Some(b'>') | None => {}
        Some(_) => {
            while i < b.len() && !space(b[i]) && b[i] != b'>' {
                value.push(b[i].to_ascii_lowercase());
                i += 1;
            }
        }
    }
    Some((i.min(b.len()), (name, value)))
}

/// The standard's "extract a character encoding from a meta element" on a `content` value.
fn charset_in(s: &[u8]) -> Option<Vec<u8>> {
    let mut i = 0;
    loop {
        let at = find(&s[i..], b"charset")?;
        i += at + 7;
        while s.get(i).is_some_and(|&c| space(c)) {
            i += 1;
        }
        if s.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while s.get(i).is_some_and(|&c| space(c)) {
            i += 1;
        }
        return match s.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let close = find(&s[i + 1..], &[q])?;
                Some(s[i + 1..i + 1 + close].to_vec())
            }
            Some(_) => {
                let end = s[i..]
                    .iter()
                    .position(|&c| space(c) || c == b';')
                    .map_or(s.len(), |e| i + e);
                Some(s[i..end].to_vec())
            }
            None => None,
        };
    }
}

/// The bytes before a declaration are nothing but a doctype and the opening tags of `html`
/// and `head` (and other `meta`, `link` and `base` tags), with white space between: where the
/// standard's prescan and Chromium's tokenizing scan cannot read differently.
fn simple_prefix(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        if space(b[i]) {
            i += 1;
            continue;
        }
        if b[i] != b'<' || b[i..].starts_with(b"<!--") {
            return false;
        }
        let tag = &b[i + 1..];
        let named = |n: &[u8]| {
            starts_ci(tag, n)
                && tag
                    .get(n.len())
                    .is_some_and(|&c| space(c) || c == b'>' || c == b'/')
        };
        if !(starts_ci(tag, b"!doctype")
            || [&b"html"[..], b"head", b"meta", b"link", b"base"]
                .iter()
                .any(|n| named(n)))
        {
            return false;
        }
        // To the tag's `>`, outside quotes.
        let mut quote = None;
        i += 1;
        loop {
            let Some(&c) = b.get(i) else {
                return false;
            };
            i += 1;
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(c),
                (None, b'>') => break,
                (None, b'<') => return false,
                _ => {}
            }
        }
    }
    b.is_ascii()
}

fn space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

fn starts_ci(b: &[u8], prefix: &[u8]) -> bool {
    b.get(..prefix.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "<!DOCTYPE html>\n<html lang=\"en\"><head>";

    fn page(head: &str, body: &str) -> Vec<u8> {
        format!("{HEAD}{head}<title>T</title></head><body>{body}</body></html>").into_bytes()
    }

    #[test]
    fn a_bom_or_a_utf8_header_is_certain() {
        let body = page("", "Grüße");
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(&body);
        // The BOM wins over the header.
        assert!(decode(Some("iso-8859-1"), &bom).is_ok_and(|t| t.starts_with("<!DOCTYPE")));
        assert!(decode(Some("utf-8"), &body).is_ok());
        assert!(decode(Some("UTF8"), &body).is_ok());
        assert_eq!(
            decode(Some("iso-8859-1"), &body),
            Err(NotCertain::Charset("iso-8859-1".into()))
        );
        assert_eq!(decode(None, b"\xFF\xFE<\x00h\x00"), Err(NotCertain::Utf16));
        assert_eq!(decode(Some("utf-8"), b"\xC3"), Err(NotCertain::Invalid));
    }

    #[test]
    fn a_meta_declaration_in_the_first_bytes_is_taken() {
        let body = page(r#"<meta charset="utf-8">"#, "Grüße");
        assert!(decode(None, &body).is_ok());
        let body = page(
            r#"<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">"#,
            "Grüße",
        );
        assert!(decode(None, &body).is_ok());
        // UTF-16 in a meta reads as UTF-8.
        assert!(decode(None, &page("<meta charset=utf-16le>", "Grüße")).is_ok());
        // A content without the pragma declares nothing.
        let body = page(r#"<meta content="charset=utf-8">"#, "Grüße");
        assert_eq!(decode(None, &body), Err(NotCertain::Undeclared));
    }

    #[test]
    fn iso_2022_jp_hides_markup_from_an_ascii_reading_and_goes_to_the_browser() {
        // ESC $ B ... ESC ( B: in ISO-2022-JP these bytes are one character, not a tag end.
        let body = page(
            "<meta charset=iso-2022-jp>",
            "<a href=\"/x\" title=\"\x1b$B\">\x1b(B<script>alert(1)</script>\">x</a>",
        );
        assert_eq!(decode(None, &body), Err(NotCertain::Declaration));
        // Plain ASCII with another ASCII-compatible charset reads the same.
        let plain = page("<meta charset=windows-1252>", "Hello");
        assert!(decode(None, &plain).is_ok());
        assert!(decode(Some("iso-8859-1"), &plain).is_ok());
        // ... but not an encoding that turns it into something else.
        let replaced = page("<meta charset=iso-2022-kr>", "Hello");
        assert_eq!(decode(None, &replaced), Err(NotCertain::Declaration));
        let escaped = page("<meta charset=iso-2022-jp>", "Hello \x1b$B");
        assert_eq!(decode(None, &escaped), Err(NotCertain::Declaration));
    }

    #[test]
    fn declarations_the_two_scans_could_read_differently_go_to_the_browser() {
        // After a <title>: Chromium's scan skips the title's text, the prescan does not.
        let body = format!(
            "{HEAD}<title><meta charset=utf-8></title><meta charset=iso-8859-2></head><body>Grüße</body></html>"
        );
        assert_eq!(decode(None, body.as_bytes()), Err(NotCertain::Declaration));
        // Too late for the prescan.
        let late = page(
            &format!("<!--{}--><meta charset=utf-8>", "x".repeat(1100)),
            "Grüße",
        );
        assert_eq!(decode(None, &late), Err(NotCertain::Declaration));
        // Two declarations that disagree.
        let two = page("<meta charset=utf-8><meta charset=koi8-r>", "Grüße");
        assert_eq!(decode(None, &two), Err(NotCertain::Declaration));
        // None at all, and not ASCII: Chromium's detector guesses.
        assert_eq!(
            decode(None, &page("", "Grüße")),
            Err(NotCertain::Undeclared)
        );
        // An XML declaration Chromium would read.
        let xml = format!("<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>{}", "Grüße");
        assert_eq!(decode(None, xml.as_bytes()), Err(NotCertain::Declaration));
        assert!(decode(None, &page("", "Hello")).is_ok());
    }

    #[test]
    fn the_prescan_reads_attributes_as_the_standard_does() {
        let found = declarations(b"<!-- <meta charset=koi8-r> --><meta x='>' charset = 'UTF-8'>");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].encoding, Some(UTF_8));
        let found = declarations(b"<!--><meta charset=koi8-r>");
        assert_eq!(found.len(), 1, "<!--> is a whole comment");
        assert_eq!(charset_in(b"text/html;charset=\"x\""), Some(b"x".to_vec()));
        assert_eq!(charset_in(b"text/html; charset"), None);
    }
}
