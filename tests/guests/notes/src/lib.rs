//! A notes component in the style of components built for other MCP hosts: plain exported
//! functions, files through `std::fs` in a directory the host preopens at `/data`.

// The exports wit-bindgen generates are `unsafe extern "C"` functions.
#![allow(unsafe_code)]

wit_bindgen::generate!({ world: "notes", path: "wit" });

const DIR: &str = "/data/notes";

struct Notes;

fn checked(name: &str) -> Result<String, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "bad note name {name:?}: use letters, digits, - and _"
        ));
    }
    Ok(format!("{DIR}/{name}.txt"))
}

impl Guest for Notes {
    fn save_note(name: String, text: String) -> Result<u64, String> {
        let path = checked(&name)?;
        std::fs::create_dir_all(DIR).map_err(|e| format!("cannot create {DIR}: {e}"))?;
        std::fs::write(&path, text.as_bytes()).map_err(|e| format!("cannot write {path}: {e}"))?;
        Ok(text.len() as u64)
    }

    fn read_note(name: String) -> Result<String, String> {
        let path = checked(&name)?;
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))
    }

    fn list_notes() -> Result<Vec<String>, String> {
        let entries = std::fs::read_dir(DIR).map_err(|e| format!("cannot list {DIR}: {e}"))?;
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter_map(|n| n.strip_suffix(".txt").map(str::to_string))
            .collect();
        names.sort();
        Ok(names)
    }
}

export!(Notes);
