//! Named keys for `terminal_write`, as the bytes an xterm sends.

/// The bytes of key `name` (case-insensitive), e.g. `enter`, `ctrl-c`, `up`, `f1`.
pub fn bytes(name: &str) -> Option<Vec<u8>> {
    let name = name
        .trim()
        .to_ascii_lowercase()
        .replace(['_', '+', ' '], "-");
    let fixed: &[u8] = match name.as_str() {
        "enter" | "return" => b"\r",
        "tab" => b"\t",
        "escape" | "esc" => b"\x1b",
        "backspace" => b"\x7f",
        "space" => b" ",
        "up" => b"\x1b[A",
        "down" => b"\x1b[B",
        "right" => b"\x1b[C",
        "left" => b"\x1b[D",
        "home" => b"\x1b[H",
        "end" => b"\x1b[F",
        "pageup" | "page-up" => b"\x1b[5~",
        "pagedown" | "page-down" => b"\x1b[6~",
        "insert" => b"\x1b[2~",
        "delete" | "del" => b"\x1b[3~",
        "f1" => b"\x1bOP",
        "f2" => b"\x1bOQ",
        "f3" => b"\x1bOR",
        "f4" => b"\x1bOS",
        "f5" => b"\x1b[15~",
        "f6" => b"\x1b[17~",
        "f7" => b"\x1b[18~",
        "f8" => b"\x1b[19~",
        "f9" => b"\x1b[20~",
        "f10" => b"\x1b[21~",
        "f11" => b"\x1b[23~",
        "f12" => b"\x1b[24~",
        _ => {
            let c = name.strip_prefix("ctrl-")?;
            let mut chars = c.chars();
            let (Some(ch), None) = (chars.next(), chars.next()) else {
                return None;
            };
            return match ch {
                'a'..='z' => Some(vec![ch as u8 - b'a' + 1]),
                '[' => Some(vec![0x1b]),
                '\\' => Some(vec![0x1c]),
                ']' => Some(vec![0x1d]),
                _ => None,
            };
        }
    };
    Some(fixed.to_vec())
}

/// Every name `bytes` knows, for error messages.
pub const NAMES: &str = "enter, tab, escape, backspace, space, up, down, left, right, home, end, pageup, pagedown, insert, delete, f1-f12, ctrl-a .. ctrl-z";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        assert_eq!(bytes("ctrl-c"), Some(vec![3]));
        assert_eq!(bytes("Ctrl+D"), Some(vec![4]));
        assert_eq!(bytes("enter"), Some(b"\r".to_vec()));
        assert_eq!(bytes("up"), Some(b"\x1b[A".to_vec()));
        assert_eq!(bytes("q"), None);
        assert_eq!(bytes("ctrl-1"), None);
    }
}
