//! Key names and characters as PC/AT set-1 scancodes (what RDP keyboard events carry), for
//! chords such as `ctrl+alt+delete` and for typing text on servers that do not take Unicode
//! keyboard events (those get the US layout's keys for ASCII).

use ironrdp_input::Scancode;

const fn key(code: u8) -> Scancode {
    Scancode::from_u8(false, code)
}

const fn ext(code: u8) -> Scancode {
    Scancode::from_u8(true, code)
}

/// Named keys, for `press-keys`.
const NAMED: &[(&str, Scancode)] = &[
    ("ctrl", key(0x1D)),
    ("control", key(0x1D)),
    ("shift", key(0x2A)),
    ("alt", key(0x38)),
    ("win", ext(0x5B)),
    ("meta", ext(0x5B)),
    ("super", ext(0x5B)),
    ("rctrl", ext(0x1D)),
    ("rshift", key(0x36)),
    ("ralt", ext(0x38)),
    ("altgr", ext(0x38)),
    ("enter", key(0x1C)),
    ("return", key(0x1C)),
    ("tab", key(0x0F)),
    ("escape", key(0x01)),
    ("esc", key(0x01)),
    ("backspace", key(0x0E)),
    ("space", key(0x39)),
    ("delete", ext(0x53)),
    ("del", ext(0x53)),
    ("insert", ext(0x52)),
    ("home", ext(0x47)),
    ("end", ext(0x4F)),
    ("pageup", ext(0x49)),
    ("pagedown", ext(0x51)),
    ("up", ext(0x48)),
    ("down", ext(0x50)),
    ("left", ext(0x4B)),
    ("right", ext(0x4D)),
    ("capslock", key(0x3A)),
    ("printscreen", ext(0x37)),
    ("menu", ext(0x5D)),
    ("f1", key(0x3B)),
    ("f2", key(0x3C)),
    ("f3", key(0x3D)),
    ("f4", key(0x3E)),
    ("f5", key(0x3F)),
    ("f6", key(0x40)),
    ("f7", key(0x41)),
    ("f8", key(0x42)),
    ("f9", key(0x43)),
    ("f10", key(0x44)),
    ("f11", key(0x57)),
    ("f12", key(0x58)),
];

/// The US layout: unshifted and shifted characters of each key.
const US: &[(u8, char, char)] = &[
    (0x02, '1', '!'),
    (0x03, '2', '@'),
    (0x04, '3', '#'),
    (0x05, '4', '$'),
    (0x06, '5', '%'),
    (0x07, '6', '^'),
    (0x08, '7', '&'),
    (0x09, '8', '*'),
    (0x0A, '9', '('),
    (0x0B, '0', ')'),
    (0x0C, '-', '_'),
    (0x0D, '=', '+'),
    (0x10, 'q', 'Q'),
    (0x11, 'w', 'W'),
    (0x12, 'e', 'E'),
    (0x13, 'r', 'R'),
    (0x14, 't', 'T'),
    (0x15, 'y', 'Y'),
    (0x16, 'u', 'U'),
    (0x17, 'i', 'I'),
    (0x18, 'o', 'O'),
    (0x19, 'p', 'P'),
    (0x1A, '[', '{'),
    (0x1B, ']', '}'),
    (0x1E, 'a', 'A'),
    (0x1F, 's', 'S'),
    (0x20, 'd', 'D'),
    (0x21, 'f', 'F'),
    (0x22, 'g', 'G'),
    (0x23, 'h', 'H'),
    (0x24, 'j', 'J'),
    (0x25, 'k', 'K'),
    (0x26, 'l', 'L'),
    (0x27, ';', ':'),
    (0x28, '\'', '"'),
    (0x29, '`', '~'),
    (0x2B, '\\', '|'),
    (0x2C, 'z', 'Z'),
    (0x2D, 'x', 'X'),
    (0x2E, 'c', 'C'),
    (0x2F, 'v', 'V'),
    (0x30, 'b', 'B'),
    (0x31, 'n', 'N'),
    (0x32, 'm', 'M'),
    (0x33, ',', '<'),
    (0x34, '.', '>'),
    (0x35, '/', '?'),
    (0x39, ' ', ' '),
];

/// The scancode of a key name (case-insensitive): the names in [`NAMED`], or one letter or
/// digit (`a`, `7`).
pub fn named(name: &str) -> Option<Scancode> {
    let name = name.to_ascii_lowercase();
    if let Some((_, code)) = NAMED.iter().find(|(n, _)| *n == name) {
        return Some(*code);
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => us_key(c).map(|(code, _)| code),
        _ => None,
    }
}

/// Every key name `named` takes, for error messages.
pub fn names() -> String {
    let mut names: Vec<&str> = NAMED.iter().map(|(n, _)| *n).collect();
    names.push("a-z, 0-9 and the other characters of a US keyboard");
    names.join(", ")
}

/// The key and whether shift is needed for `c` on a US keyboard; `\n` is enter and `\t` tab.
pub fn us_key(c: char) -> Option<(Scancode, bool)> {
    match c {
        '\n' | '\r' => return Some((key(0x1C), false)),
        '\t' => return Some((key(0x0F), false)),
        _ => {}
    }
    US.iter().find_map(|(code, plain, shifted)| {
        if c == *plain {
            Some((key(*code), false))
        } else if c == *shifted {
            Some((key(*code), true))
        } else {
            None
        }
    })
}

/// The left shift key.
pub const SHIFT: Scancode = key(0x2A);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_and_characters_map_to_scancodes() {
        assert_eq!(named("Ctrl"), Some(key(0x1D)));
        assert_eq!(named("delete"), Some(ext(0x53)));
        assert_eq!(named("r"), Some(key(0x13)));
        assert_eq!(named("nope"), None);
        assert_eq!(us_key('A'), Some((key(0x1E), true)));
        assert_eq!(us_key('>'), Some((key(0x34), true)));
        assert_eq!(us_key('\n'), Some((key(0x1C), false)));
        assert_eq!(us_key('é'), None);
    }
}
