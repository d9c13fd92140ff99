//! `@eN` references: short names for element handles, stable for the same DOM node for the
//! life of a tab, so an agent can act on a ref from an older snapshot while the node exists.

use std::collections::HashMap;
use warden_sdk::prelude::*;

/// A ref as agents write it: `7`, `"e7"` or `"@e7"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RefArg {
    Number(u32),
    Text(String),
}

/// Advertised as the number alone: that is what the snapshots teach, and one type costs
/// every client fewer tokens than two; `"e7"` and `"@e7"` are still accepted.
impl JsonSchema for RefArg {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RefArg".into()
    }

    fn json_schema(_: &mut warden_sdk::schemars::SchemaGenerator) -> warden_sdk::schemars::Schema {
        warden_sdk::schemars::json_schema!({ "type": "integer" })
    }

    fn inline_schema() -> bool {
        true
    }
}

impl RefArg {
    pub fn number(&self) -> Result<u32, ToolError> {
        match self {
            Self::Number(n) => Ok(*n),
            Self::Text(t) => t
                .trim()
                .trim_start_matches('@')
                .trim_start_matches('e')
                .parse()
                .map_err(|_| {
                    ToolError::invalid_arguments(format!(
                        "ref \"{t}\" is not a ref; use the N of @eN from the last snapshot, like 5 or \"e5\""
                    ))
                }),
        }
    }
}

/// The refs of one tab. Kept between calls as the list of handles (ref N is entry N-1).
#[derive(Debug, Default)]
pub struct RefMap {
    by_handle: HashMap<u64, u32>,
    handles: Vec<u64>,
}

impl Serialize for RefMap {
    fn serialize<S: warden_sdk::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.handles.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RefMap {
    fn deserialize<D: warden_sdk::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut refs = Self::default();
        for handle in Vec::<u64>::deserialize(d)? {
            refs.ref_of(handle);
        }
        Ok(refs)
    }
}

impl RefMap {
    /// The ref of `handle`, assigning the next number on first sight.
    pub fn ref_of(&mut self, handle: u64) -> u32 {
        if let Some(r) = self.by_handle.get(&handle) {
            return *r;
        }
        self.handles.push(handle);
        let r = u32::try_from(self.handles.len()).unwrap_or(u32::MAX);
        self.by_handle.insert(handle, r);
        r
    }

    /// The handle behind `@eN`.
    pub fn handle(&self, r: u32) -> Result<u64, ToolError> {
        r.checked_sub(1)
            .and_then(|i| self.handles.get(i as usize))
            .copied()
            .ok_or_else(|| {
                ToolError::not_found(format!(
                    "@e{r} is not a ref of this tab; take a snapshot (browse_snapshot) and use a ref from it"
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_are_stable_and_parse_in_all_forms() {
        let mut m = RefMap::default();
        assert_eq!(m.ref_of(77), 1);
        assert_eq!(m.ref_of(99), 2);
        assert_eq!(m.ref_of(77), 1);
        assert_eq!(m.handle(2), Ok(99));
        assert!(m.handle(3).is_err());
        assert!(m.handle(0).is_err());
        for arg in [
            RefArg::Number(2),
            RefArg::Text("e2".into()),
            RefArg::Text("@e2".into()),
        ] {
            assert_eq!(arg.number(), Ok(2));
        }
        assert!(RefArg::Text("button".into()).number().is_err());
    }

    #[test]
    fn refs_survive_being_kept() {
        let mut m = RefMap::default();
        for handle in [40, 7, 99] {
            m.ref_of(handle);
        }
        let kept = serde_json::to_string(&m).expect("encode");
        assert_eq!(kept, "[40,7,99]");
        let mut back: RefMap = serde_json::from_str(&kept).expect("decode");
        assert_eq!(back.handle(2), Ok(7));
        assert_eq!(back.ref_of(99), 3);
        assert_eq!(back.ref_of(5), 4);
    }
}
