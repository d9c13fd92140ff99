//! `[roles.NAME] narrow.PLUGIN`: a role's narrower grants of one plugin. Each kind the role
//! names (`browser`, `http`, ...) replaces the plugin's kind for the role's clients and is
//! compiled by the same code as the plugin's own grants; it must lie within the plugin's,
//! value by value, or the manifest does not load. So the grants a narrowed call acts with are
//! the intersection, and the capability providers check them exactly as they check any
//! plugin's. In a kind the role names, lists and switches it leaves out are off (nothing
//! granted); limits it leaves out (sizes, times, counts, methods) are the plugin's.

use super::glob::GlobList;
use super::grants::{Grants, Members, NarrowedBy};
use super::plugin::PluginConfig;
use super::plugin_grants::PluginScope;
use super::schema::{GrantsSpec, NarrowSpec};
use super::validate::Validator;
use crate::net::{Space, explicit_space};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// Where each narrowed kind was written, for the errors of the within-check.
#[derive(Default)]
struct Spans {
    browser: Option<Range<usize>>,
    http: Option<Range<usize>>,
    terminal: Option<Range<usize>>,
    sftp: Option<Range<usize>>,
    rdp: Option<Range<usize>>,
    capture: Option<Range<usize>>,
    files: Option<Range<usize>>,
}

impl Spans {
    /// The grant kinds the role wrote, as `grants.KIND` names them.
    fn kinds(&self) -> Vec<&'static str> {
        [
            ("browser", &self.browser),
            ("http", &self.http),
            ("terminal", &self.terminal),
            ("sftp", &self.sftp),
            ("rdp", &self.rdp),
            ("capture", &self.capture),
            ("files", &self.files),
        ]
        .into_iter()
        .filter_map(|(kind, span)| span.as_ref().map(|_| kind))
        .collect()
    }
}

/// Glob characters other than `*`.
const OTHER_GLOB: &[char] = &['?', '[', ']', '{', '}'];

/// Is every origin or host `pattern` matches also matched by one of `list`? Decided
/// soundly, not fully: a pattern without glob characters is matched as the candidate it is;
/// one whose only wildcard is `*` is within a `*`-only pattern that matches its text (each
/// of its `*` then falls inside one of the other's); else it must be one of `list` as
/// written. A pattern naming private space literally needs a pattern naming the same space.
pub fn pattern_within(pattern: &str, list: &GlobList) -> bool {
    list.patterns().iter().any(|q| {
        let same_space = match (explicit_space(pattern), explicit_space(q)) {
            (None, _) => true,
            (Some(p), Some(q)) => {
                p == q || (q == Space::Loopback && matches!(p, Space::Ip(ip) if ip.is_loopback()))
            }
            (Some(_), None) => false,
        };
        if !same_space {
            return false;
        }
        if q.eq_ignore_ascii_case(pattern) {
            return true;
        }
        let literal = !pattern.contains('*') && !pattern.contains(OTHER_GLOB);
        let stars = !pattern.contains(OTHER_GLOB) && !q.contains(OTHER_GLOB);
        (literal || stars)
            && GlobList::new(std::slice::from_ref(q)).is_ok_and(|g| g.is_match(pattern))
    })
}

/// Is remote path `path` `root` or under it?
fn remote_under(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    let path = path.trim_end_matches('/');
    root.is_empty() || path == root || path.strip_prefix(root).is_some_and(|r| r.starts_with('/'))
}

fn local_under(path: &Path, roots: &[std::path::PathBuf]) -> bool {
    roots.iter().any(|r| path.starts_with(r))
}

impl Validator<'_> {
    /// The grants of `plugin` for a role's clients: the role's kinds merged with the plugin's
    /// other kinds (as written), compiled, and checked to lie within the plugin's grants.
    /// `None` (with errors) when they do not.
    pub(super) fn narrow_grants(
        &mut self,
        role: &str,
        key: &str,
        plugin: &PluginConfig,
        written: GrantsSpec,
        narrow: Spanned<NarrowSpec>,
        scope: &PluginScope<'_>,
    ) -> Option<Grants> {
        let errors_before = self.diagnostics.len();
        let key = format!("{key}.narrow.{}", plugin.name);
        let narrow = narrow.into_inner();
        let mut merged = written.clone();
        let mut spans = Spans::default();
        let lacks = |v: &mut Self, span: Range<usize>, kind: &str| {
            v.error(span, format!("{key}.{kind}: plugin '{}' has no grants.{kind}, and a role only narrows what the plugin has", plugin.name));
        };
        if let Some(b) = narrow.browser {
            let span = b.span();
            match &written.browser {
                None => lacks(self, span, "browser"),
                Some(w) => {
                    let mut b = b.into_inner();
                    b.download_max = b.download_max.or_else(|| w.download_max.clone());
                    merged.browser = Some(b);
                    spans.browser = Some(span);
                }
            }
        }
        if let Some(h) = narrow.http {
            let span = h.span();
            match &written.http {
                None => lacks(self, span, "http"),
                Some(w) => {
                    let mut h = h.into_inner();
                    h.methods = h.methods.or_else(|| w.methods.clone());
                    h.max_request_body = h.max_request_body.or_else(|| w.max_request_body.clone());
                    h.max_response_body =
                        h.max_response_body.or_else(|| w.max_response_body.clone());
                    h.timeout = h.timeout.or_else(|| w.timeout.clone());
                    h.connect_timeout = h.connect_timeout.or_else(|| w.connect_timeout.clone());
                    h.concurrency = h.concurrency.or_else(|| w.concurrency.clone());
                    merged.http = Some(h);
                    spans.http = Some(span);
                }
            }
        }
        if let Some(t) = narrow.terminal {
            let span = t.span();
            if written.terminal.is_none() {
                lacks(self, span, "terminal");
            } else {
                merged.terminal = Some(t.into_inner());
                spans.terminal = Some(span);
            }
        }
        if let Some(s) = narrow.sftp {
            let span = s.span();
            if written.sftp.is_none() {
                lacks(self, span, "sftp");
            } else {
                merged.sftp = Some(s.into_inner());
                spans.sftp = Some(span);
            }
        }
        if let Some(r) = narrow.rdp {
            let span = r.span();
            if written.rdp.is_none() {
                lacks(self, span, "rdp");
            } else {
                merged.rdp = Some(r.into_inner());
                spans.rdp = Some(span);
            }
        }
        if let Some(c) = narrow.capture {
            let span = c.span();
            match &written.capture {
                None => lacks(self, span, "capture"),
                Some(w) => {
                    let mut c = c.into_inner();
                    c.max_body = c.max_body.or_else(|| w.max_body.clone());
                    merged.capture = Some(c);
                    spans.capture = Some(span);
                }
            }
        }
        if let Some(f) = narrow.files {
            spans.files = Some(f.span());
            merged.files = f.into_inner();
        }
        let mut grants = self.grants(&plugin.name, merged, scope);
        grants.caps = plugin.grants.caps;
        grants.narrowed_by = Some(NarrowedBy {
            role: role.to_string(),
            kinds: spans.kinds(),
        });
        if self.diagnostics.len() != errors_before {
            return None;
        }
        self.within(&key, &plugin.grants, &grants, &spans);
        (self.diagnostics.len() == errors_before).then_some(grants)
    }

    /// Every value of `narrowed` within `granted`, for the kinds the role named.
    fn within(&mut self, key: &str, granted: &Grants, narrowed: &Grants, spans: &Spans) {
        let mut wide: Vec<(Range<usize>, String)> = Vec::new();
        let patterns = |span: &Range<usize>,
                        field: &str,
                        of: &GlobList,
                        within: &GlobList,
                        wide: &mut Vec<_>| {
            for p in of.patterns() {
                if !pattern_within(p, within) {
                    wide.push((span.clone(), format!("{key}.{field}: \"{p}\" is not within the plugin's {field} {:?}; a role may only narrow (name one of those, or a narrower literal)", within.patterns())));
                }
            }
        };
        let switch = |span: &Range<usize>,
                      field: &str,
                      role: bool,
                      plugin: bool,
                      wide: &mut Vec<_>| {
            if role && !plugin {
                wide.push((span.clone(), format!("{key}.{field} = true, and the plugin's is false: a role may only narrow; remove it")));
            }
        };
        let at_most = |span: &Range<usize>,
                       field: &str,
                       role: u128,
                       plugin: u128,
                       wide: &mut Vec<_>| {
            if role > plugin {
                wide.push((span.clone(), format!("{key}.{field} is more than the plugin's: a role may only narrow; set it no higher than the plugin's, or leave it out to keep the plugin's")));
            }
        };
        let subset = |span: &Range<usize>,
                      field: &str,
                      role: &[String],
                      plugin: &[String],
                      wide: &mut Vec<_>| {
            for name in role.iter().filter(|n| !plugin.contains(n)) {
                wide.push((span.clone(), format!("{key}.{field}: \"{name}\" is not in the plugin's {field} {plugin:?}; a role may only narrow")));
            }
        };
        // A fleet the plugin reaches only in part stays in that part: the role names
        // members for it, each within the plugin's globs.
        let members = |span: &Range<usize>,
                       kind: &str,
                       hosts: &[String],
                       n: &Members,
                       g: &Members,
                       wide: &mut Vec<_>| {
            for alias in hosts {
                let Some(plugin) = g.of(alias) else { continue };
                match n.of(alias) {
                    None => wide.push((span.clone(), format!("{key}.{kind}.members.{alias} is not set, and the plugin reaches only the members {:?} of \"{alias}\"; name members within those", plugin.patterns()))),
                    Some(role) => {
                        for p in role.patterns() {
                            if !pattern_within(p, plugin) {
                                wide.push((span.clone(), format!("{key}.{kind}.members.{alias}: \"{p}\" is not within the plugin's {kind}.members.{alias} {:?}; a role may only narrow (name one of those, or a narrower literal)", plugin.patterns())));
                            }
                        }
                    }
                }
            }
        };
        if let (Some(span), Some(n), Some(g)) =
            (&spans.browser, &narrowed.browser, &granted.browser)
        {
            patterns(span, "browser.origins", &n.origins, &g.origins, &mut wide);
            let mut either = g.origins.patterns().to_vec();
            either.extend(g.resource_origins.patterns().iter().cloned());
            let either = GlobList::new(&either).unwrap_or_else(|_| GlobList::empty());
            patterns(
                span,
                "browser.resource_origins",
                &n.resource_origins,
                &either,
                &mut wide,
            );
            switch(span, "browser.cookies", n.cookies, g.cookies, &mut wide);
            switch(span, "browser.eval_js", n.eval_js, g.eval_js, &mut wide);
            for d in n
                .upload_dirs
                .iter()
                .filter(|d| !local_under(d, &g.upload_dirs))
            {
                wide.push((
                    span.clone(),
                    format!(
                        "{key}.browser.upload_dirs: {} is not inside the plugin's upload_dirs {:?}",
                        d.display(),
                        g.upload_dirs
                    ),
                ));
            }
            if let Some(d) = &n.download_dir
                && !g.download_dir.as_ref().is_some_and(|p| d.starts_with(p))
            {
                wide.push((span.clone(), format!("{key}.browser.download_dir: {} is not inside the plugin's download_dir {:?}", d.display(), g.download_dir)));
            }
            at_most(
                span,
                "browser.download_max",
                n.download_max.into(),
                g.download_max.into(),
                &mut wide,
            );
            let names = |s: &[super::grants::SecretGrant]| {
                s.iter().map(|s| s.name.clone()).collect::<Vec<_>>()
            };
            subset(
                span,
                "browser.secrets",
                &names(&n.secrets),
                &names(&g.secrets),
                &mut wide,
            );
            subset(
                span,
                "browser.profiles",
                &n.profiles,
                &g.profiles,
                &mut wide,
            );
        }
        if let (Some(span), Some(n), Some(g)) = (&spans.http, &narrowed.http, &granted.http) {
            patterns(span, "http.origins", &n.origins, &g.origins, &mut wide);
            subset(span, "http.methods", &n.methods, &g.methods, &mut wide);
            let names = |c: &[std::sync::Arc<super::credentials::Credential>]| {
                c.iter().map(|c| c.name.clone()).collect::<Vec<_>>()
            };
            subset(
                span,
                "http.credentials",
                &names(&n.credentials),
                &names(&g.credentials),
                &mut wide,
            );
            at_most(
                span,
                "http.max_request_body",
                n.max_request_body.into(),
                g.max_request_body.into(),
                &mut wide,
            );
            at_most(
                span,
                "http.max_response_body",
                n.max_response_body.into(),
                g.max_response_body.into(),
                &mut wide,
            );
            at_most(
                span,
                "http.timeout",
                n.timeout.as_millis(),
                g.timeout.as_millis(),
                &mut wide,
            );
            at_most(
                span,
                "http.connect_timeout",
                n.connect_timeout.as_millis(),
                g.connect_timeout.as_millis(),
                &mut wide,
            );
            at_most(
                span,
                "http.concurrency",
                n.concurrency as u128,
                g.concurrency as u128,
                &mut wide,
            );
        }
        if let (Some(span), Some(n), Some(g)) =
            (&spans.terminal, &narrowed.terminal, &granted.terminal)
        {
            switch(span, "terminal.local", n.local, g.local, &mut wide);
            subset(
                span,
                "terminal.ssh_hosts",
                &n.ssh_hosts,
                &g.ssh_hosts,
                &mut wide,
            );
            members(
                span,
                "terminal",
                &n.ssh_hosts,
                &n.members,
                &g.members,
                &mut wide,
            );
            if g.read_only && !n.read_only {
                wide.push((span.clone(), format!("{key}.terminal.read_only: the plugin's sessions are read-only; set read_only = true")));
            }
        }
        if let (Some(span), Some(n), Some(g)) = (&spans.sftp, &narrowed.sftp, &granted.sftp) {
            subset(span, "sftp.hosts", &n.hosts, &g.hosts, &mut wide);
            members(span, "sftp", &n.hosts, &n.members, &g.members, &mut wide);
            if n.roots.is_empty() && !g.roots.is_empty() {
                wide.push((
                    span.clone(),
                    format!(
                        "{key}.sftp.roots: name roots within the plugin's {:?}",
                        g.roots
                    ),
                ));
            }
            for r in n
                .roots
                .iter()
                .filter(|r| !g.roots.iter().any(|p| remote_under(r, p)))
            {
                wide.push((
                    span.clone(),
                    format!(
                        "{key}.sftp.roots: \"{r}\" is not under one of the plugin's roots {:?}",
                        g.roots
                    ),
                ));
            }
            switch(span, "sftp.write", n.write, g.write, &mut wide);
        }
        if let (Some(span), Some(n), Some(g)) = (&spans.rdp, &narrowed.rdp, &granted.rdp) {
            subset(span, "rdp.hosts", &n.hosts, &g.hosts, &mut wide);
            if g.read_only && !n.read_only {
                wide.push((span.clone(), format!("{key}.rdp.read_only: the plugin's desktops are read-only; set read_only = true")));
            }
        }
        if let (Some(span), Some(n), Some(g)) =
            (&spans.capture, &narrowed.capture, &granted.capture)
        {
            patterns(
                span,
                "capture.http_hosts",
                &n.http_hosts,
                &g.http_hosts,
                &mut wide,
            );
            patterns(span, "capture.origins", &n.origins, &g.origins, &mut wide);
            switch(span, "capture.cookies", n.cookies, g.cookies, &mut wide);
            switch(
                span,
                "capture.http_only_cookies",
                n.http_only_cookies,
                g.http_only_cookies,
                &mut wide,
            );
            at_most(
                span,
                "capture.max_body",
                n.max_body.into(),
                g.max_body.into(),
                &mut wide,
            );
        }
        if let Some(span) = &spans.files {
            for f in &narrowed.files {
                match granted.files.iter().find(|g| g.guest == f.guest && g.host == f.host) {
                    None => wide.push((span.clone(), format!("{key}.files: {{ guest = \"{}\" }} is not one of the plugin's directories (same host and guest); a role keeps some of them, it adds none", f.guest))),
                    Some(g) => {
                        switch(span, &format!("files {{ guest = \"{}\" }} read-write", f.guest), f.write, g.write, &mut wide);
                        if f.write {
                            at_most(span, &format!("files {{ guest = \"{}\" }} quota", f.guest), f.quota.into(), g.quota.into(), &mut wide);
                        }
                    }
                }
            }
        }
        for (span, message) in wide {
            self.error(span, message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(p: &[&str]) -> GlobList {
        GlobList::new(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect("globs")
    }

    #[test]
    fn a_narrower_pattern_is_within_and_a_wider_one_is_not() {
        let plugin = list(&["https://*.example.com", "http://127.0.0.1:*"]);
        assert!(pattern_within("https://staging.example.com", &plugin));
        assert!(pattern_within("https://*.staging.example.com", &plugin));
        assert!(pattern_within("http://127.0.0.1:8080", &plugin));
        assert!(pattern_within("http://127.0.0.1:*", &plugin));
        assert!(!pattern_within("https://*", &plugin));
        assert!(!pattern_within("https://*.com", &plugin));
        assert!(!pattern_within("http://10.0.0.1:80", &plugin));
        assert!(!pattern_within("https://example.org", &plugin));
    }

    #[test]
    fn other_wildcards_are_never_taken_for_narrower() {
        // `?` matches the `*` character once, but `*` stands for any run of characters.
        assert!(!pattern_within("https://*.com", &list(&["https://?.com"])));
        // A negated class matches `*` itself, not every character `*` stands for.
        assert!(!pattern_within(
            "https://*.com",
            &list(&["https://[!x]*.com"])
        ));
        assert!(!pattern_within(
            "https://{a,b}.com",
            &list(&["https://a.com"])
        ));
        assert!(pattern_within(
            "https://a.com",
            &list(&["https://[ab].com"])
        ));
    }

    #[test]
    fn private_space_needs_the_plugin_to_name_it_too() {
        // `*` does not name 10.0.0.5, so the plugin's grant keeps private space closed.
        assert!(!pattern_within("http://10.0.0.5:80", &list(&["http://*"])));
        assert!(pattern_within(
            "http://10.0.0.5:80",
            &list(&["http://10.0.0.5:*"])
        ));
        assert!(!pattern_within(
            "http://127.0.0.1:80",
            &list(&["http://localhost:*", "http://*"])
        ));
        assert!(pattern_within(
            "http://localhost:80",
            &list(&["http://localhost:*"])
        ));
    }

    #[test]
    fn remote_roots_nest_by_component() {
        assert!(remote_under("/srv/app/logs", "/srv/app"));
        assert!(remote_under("/srv/app", "/srv/app/"));
        assert!(!remote_under("/srv/application", "/srv/app"));
        assert!(remote_under("/anything", "/"));
    }
}
