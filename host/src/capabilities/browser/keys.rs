//! Key names and combinations (`Enter`, `Control+A`, `Shift+Tab`) as CDP key events.

use chromiumoxide::keys::USKEYBOARD_LAYOUT;

/// CDP modifier bits.
pub const ALT: i64 = 1;
pub const CTRL: i64 = 2;
pub const META: i64 = 4;
pub const SHIFT: i64 = 8;

/// One key to press, as `Input.dispatchKeyEvent` wants it.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub key: String,
    pub code: String,
    pub key_code: i64,
    /// The text the key types (none for Enter with modifiers, arrows, F-keys...).
    pub text: Option<String>,
}

fn modifier(name: &str) -> Option<i64> {
    match name.to_ascii_lowercase().as_str() {
        "alt" | "option" => Some(ALT),
        "control" | "ctrl" => Some(CTRL),
        "meta" | "cmd" | "command" | "super" => Some(META),
        "shift" => Some(SHIFT),
        _ => None,
    }
}

/// The key definition for a name such as `Enter`, `a`, `ArrowDown`, `Space`.
pub fn key(name: &str) -> Option<Key> {
    let name = match name.to_ascii_lowercase().as_str() {
        "space" => " ",
        "esc" => "Escape",
        "return" => "Enter",
        "del" => "Delete",
        "up" => "ArrowUp",
        "down" => "ArrowDown",
        "left" => "ArrowLeft",
        "right" => "ArrowRight",
        "pgup" => "PageUp",
        "pgdn" => "PageDown",
        _ => name,
    };
    let def = USKEYBOARD_LAYOUT
        .iter()
        .find(|d| d.key == name)
        .or_else(|| {
            USKEYBOARD_LAYOUT
                .iter()
                .find(|d| d.key.eq_ignore_ascii_case(name) && d.key.len() > 1)
        })?;
    let text = match def.text {
        Some(t) => Some(t.to_string()),
        None if def.key.chars().count() == 1 => Some(def.key.to_string()),
        None => None,
    };
    Some(Key {
        key: def.key.to_string(),
        code: def.code.to_string(),
        key_code: def.key_code,
        text,
    })
}

/// Parse `Control+Shift+A` into modifier bits and the key.
pub fn combo(spec: &str) -> Result<(i64, Key), String> {
    let parts: Vec<&str> = spec.split('+').map(str::trim).collect();
    // "Control++" means Control and the plus key.
    let (mods, last) = if spec.ends_with("++") {
        (&parts[..parts.len().saturating_sub(2)], "+")
    } else {
        match parts.split_last() {
            Some((last, mods)) => (mods, *last),
            None => (&parts[..0], ""),
        }
    };
    let mut bits = 0;
    for m in mods {
        bits |= modifier(m).ok_or_else(|| {
            format!("\"{m}\" is not a modifier (use Alt, Control, Meta or Shift, joined with +)")
        })?;
    }
    if let Some(bit) = modifier(last) {
        // A lone modifier press, such as "Shift".
        let name = match bit {
            ALT => "Alt",
            CTRL => "Control",
            META => "Meta",
            _ => "Shift",
        };
        let k = key(name).ok_or_else(|| format!("unknown key \"{last}\""))?;
        return Ok((bits, k));
    }
    let mut k = key(last).ok_or_else(|| {
        format!(
            "unknown key \"{last}\"; use a character or a key name such as Enter, Tab, Escape, Backspace, Delete, ArrowUp, Home, PageDown, F5"
        )
    })?;
    if bits & (CTRL | META | ALT) != 0 {
        // With a command modifier the key is a shortcut, not text.
        k.text = None;
    } else if let Some(t) = k.text.as_ref().filter(|_| bits & SHIFT != 0) {
        k.text = Some(t.to_uppercase());
    }
    Ok((bits, k))
}

/// What a key combination does with the clipboard in a browser (Linux, Windows and macOS
/// bindings, and the dedicated keys some keyboards have).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clipboard {
    /// Copy or cut the selection.
    Copy,
    Paste,
}

pub fn clipboard_use(modifiers: i64, key: &Key) -> Option<Clipboard> {
    let command = modifiers & (CTRL | META) != 0;
    let shift = modifiers & SHIFT != 0;
    match (key.key.to_ascii_lowercase().as_str(), key.code.as_str()) {
        ("copy" | "cut", _) => Some(Clipboard::Copy),
        ("paste", _) => Some(Clipboard::Paste),
        (_, "KeyC" | "KeyX") if command => Some(Clipboard::Copy),
        (_, "KeyV") if command => Some(Clipboard::Paste),
        // Control+Insert copies, Shift+Insert pastes, Shift+Delete cuts (also as the
        // keypad's 0 and decimal point with Num Lock off).
        (_, "Insert" | "Numpad0") if command => Some(Clipboard::Copy),
        (_, "Insert" | "Numpad0") if shift => Some(Clipboard::Paste),
        (_, "Delete" | "NumpadDecimal") if shift => Some(Clipboard::Copy),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipboard_chords() {
        let use_of = |spec: &str| {
            let (m, k) = combo(spec).expect(spec);
            clipboard_use(m, &k)
        };
        for spec in [
            "Control+c",
            "Control+C",
            "Meta+x",
            "Control+Insert",
            "Shift+Delete",
            "Control+Shift+c",
        ] {
            assert_eq!(use_of(spec), Some(Clipboard::Copy), "{spec}");
        }
        for spec in ["Control+v", "Meta+V", "Shift+Insert", "Control+Shift+v"] {
            assert_eq!(use_of(spec), Some(Clipboard::Paste), "{spec}");
        }
        for spec in [
            "c",
            "v",
            "Control+a",
            "Shift+Tab",
            "Insert",
            "Delete",
            "Enter",
        ] {
            assert_eq!(use_of(spec), None, "{spec}");
        }
    }

    #[test]
    fn combos() {
        let (m, k) = combo("Enter").expect("Enter");
        assert_eq!((m, k.key.as_str(), k.key_code), (0, "Enter", 13));
        let (m, k) = combo("Control+a").expect("Control+a");
        assert_eq!((m, k.key.as_str(), k.text), (CTRL, "a", None));
        let (m, k) = combo("Shift+Tab").expect("Shift+Tab");
        assert_eq!((m, k.key.as_str()), (SHIFT, "Tab"));
        assert!(combo("Hyper+x").is_err());
        assert!(combo("NoSuchKey").is_err());
        let (_, k) = combo("space").expect("space");
        assert_eq!(k.text.as_deref(), Some(" "));
    }
}
