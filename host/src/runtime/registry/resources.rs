//! Who owns a resource URI. A plugin claims each URI it lists and, for each template, every
//! URI that starts with the template's literal prefix (the part before the first `{`), which
//! is how reads are routed. Two plugins whose claims overlap cannot both load: a read must
//! have exactly one plugin to go to.

use super::WasmPlugin;

/// One URI, or one template's prefix, that a plugin serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    Uri(String),
    /// A template and its literal prefix.
    Template {
        template: String,
        prefix: String,
    },
}

impl Claim {
    pub fn of(plugin: &WasmPlugin) -> Vec<Claim> {
        let uris = plugin.resources.iter().map(|r| Claim::Uri(r.uri.clone()));
        let templates = plugin.templates.iter().map(|t| Claim::Template {
            template: t.uri_template.clone(),
            prefix: t.uri_template.split('{').next().unwrap_or("").to_string(),
        });
        uris.chain(templates).collect()
    }

    /// Whether a read of `uri` belongs to this claim.
    pub fn covers(&self, uri: &str) -> bool {
        match self {
            Self::Uri(u) => u == uri,
            Self::Template { prefix, .. } => uri.starts_with(prefix.as_str()),
        }
    }

    fn overlaps(&self, other: &Claim) -> bool {
        match (self, other) {
            (Self::Uri(a), Self::Uri(b)) => a == b,
            (Self::Uri(u), t @ Self::Template { .. })
            | (t @ Self::Template { .. }, Self::Uri(u)) => t.covers(u),
            (Self::Template { prefix: a, .. }, Self::Template { prefix: b, .. }) => {
                a.starts_with(b.as_str()) || b.starts_with(a.as_str())
            }
        }
    }
}

impl std::fmt::Display for Claim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Uri(u) => write!(f, "\"{u}\""),
            Self::Template { template, .. } => write!(f, "template \"{template}\""),
        }
    }
}

/// The first pair of claims, one from each side, that overlap.
pub fn overlap<'a>(mine: &'a [Claim], theirs: &'a [Claim]) -> Option<(&'a Claim, &'a Claim)> {
    mine.iter()
        .find_map(|m| theirs.iter().find(|t| m.overlaps(t)).map(|t| (m, t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(u: &str) -> Claim {
        Claim::Uri(u.into())
    }

    fn template(t: &str) -> Claim {
        Claim::Template {
            template: t.into(),
            prefix: t.split('{').next().unwrap_or("").into(),
        }
    }

    #[test]
    fn same_uri_overlaps() {
        assert!(overlap(&[uri("sessions://list")], &[uri("sessions://list")]).is_some());
        assert!(overlap(&[uri("sessions://list")], &[uri("sessions://other")]).is_none());
    }

    #[test]
    fn a_template_overlaps_the_uris_it_would_route() {
        let t = [template("sessions://{id}/info")];
        assert!(overlap(&[uri("sessions://list")], &t).is_some());
        assert!(overlap(&t, &[uri("notes://a")]).is_none());
    }

    #[test]
    fn templates_overlap_when_one_prefix_starts_the_other() {
        assert!(overlap(&[template("a://{x}")], &[template("a://b/{y}")]).is_some());
        assert!(overlap(&[template("a://{x}")], &[template("b://{y}")]).is_none());
        // A template with no literal prefix claims every URI.
        assert!(overlap(&[template("{uri}")], &[uri("b://c")]).is_some());
    }
}
