//! `[roles.NAME]`: what a client may use. A role names the plugins, tool groups, tools and
//! prompts its clients reach, the tools that need a person's approval for them, and may
//! narrow (never widen) a plugin's grants (`role_grants.rs`). Clients get a role by name
//! (`[server.http.clients.NAME] role`, `[server.http.oauth.clients.NAME] role`); stdio and
//! unauthenticated HTTP get `[server] local_role` (default: everything). Once any role is
//! defined, a named client without one gets nothing.

use super::glob::GlobList;
use super::grants::Grants;
use super::plugin::PluginConfig;
use super::validate::{Validator, valid_name};
use std::collections::BTreeMap;
use std::sync::Arc;
use toml::Spanned;

/// One validated role.
#[derive(Debug)]
pub struct Role {
    pub name: String,
    /// Plugins served whole.
    pub plugins: Vec<String>,
    /// `(plugin, group)`.
    pub groups: Vec<(String, String)>,
    pub tools: GlobList,
    pub prompts: GlobList,
    pub require_approval: GlobList,
    /// The grants this role's clients act with, per narrowed plugin (the intersection).
    pub narrowed: BTreeMap<String, Arc<Grants>>,
    /// Line of the role's table, for messages.
    pub line: usize,
}

/// Why a role refuses something: the rule that decided, for the client and the audit line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoleRefusal {
    #[error(
        "access denied: {what} is not in role '{role}' of this client (roles.{role}: plugins = {plugins:?}, groups = {groups:?}, {list} = {patterns:?}); ask the admin to add it to the role"
    )]
    NotInRole {
        role: String,
        what: String,
        plugins: Vec<String>,
        groups: Vec<String>,
        /// `tools` or `prompts`.
        list: &'static str,
        patterns: Vec<String>,
    },
    #[error(
        "access denied: client '{client}' has no role, and this server gives a client without one nothing; the admin gives it one with role = \"NAME\" in its [server.http.clients.{client}] or [server.http.oauth.clients.{client}] table"
    )]
    NoRole { client: String },
}

impl RoleRefusal {
    /// The role and rule, short, for the audit line's `reason`.
    pub fn rule(&self) -> String {
        match self {
            Self::NotInRole { role, list, .. } => {
                format!("role {role}: in none of roles.{role}.plugins, groups, {list}")
            }
            Self::NoRole { client } => format!("client {client} has no role"),
        }
    }
}

/// What one caller may use: everything (no roles, or the local operator by default), a role,
/// or nothing (a named client without a role once roles are defined).
#[derive(Debug, Clone, Default)]
pub enum Access {
    #[default]
    All,
    Role(Arc<Role>),
    NoRole(Arc<str>),
}

/// What a tool is, for a role's check.
#[derive(Debug, Clone, Copy)]
pub struct ToolRef<'a> {
    pub plugin: &'a str,
    pub group: Option<&'a str>,
    pub public: &'a str,
}

impl Access {
    /// The role's name, for audit lines; `None` for everything.
    pub fn role(&self) -> Option<&str> {
        match self {
            Self::All => None,
            Self::Role(r) => Some(&r.name),
            Self::NoRole(_) => Some("(none)"),
        }
    }

    pub fn tool(&self, tool: ToolRef<'_>) -> Result<(), Box<RoleRefusal>> {
        let role = match self {
            Self::All => return Ok(()),
            Self::NoRole(client) => return Err(self.no_role(client)),
            Self::Role(role) => role,
        };
        let in_group = tool
            .group
            .is_some_and(|g| role.groups.iter().any(|(p, q)| p == tool.plugin && q == g));
        if role.plugins.iter().any(|p| p == tool.plugin)
            || in_group
            || role.tools.is_match(tool.public)
        {
            return Ok(());
        }
        Err(role.not_in(format!("tool \"{}\"", tool.public), "tools", &role.tools))
    }

    pub fn prompt(&self, plugin: &str, public: &str) -> Result<(), Box<RoleRefusal>> {
        let role = match self {
            Self::All => return Ok(()),
            Self::NoRole(client) => return Err(self.no_role(client)),
            Self::Role(role) => role,
        };
        if role.plugins.iter().any(|p| p == plugin) || role.prompts.is_match(public) {
            return Ok(());
        }
        Err(role.not_in(format!("prompt \"{public}\""), "prompts", &role.prompts))
    }

    /// Resources, their templates and their completions: only of plugins served whole.
    pub fn resources_of(&self, plugin: &str, what: &str) -> Result<(), Box<RoleRefusal>> {
        let role = match self {
            Self::All => return Ok(()),
            Self::NoRole(client) => return Err(self.no_role(client)),
            Self::Role(role) => role,
        };
        if role.plugins.iter().any(|p| p == plugin) {
            return Ok(());
        }
        Err(role.not_in(
            format!("{what} of plugin '{plugin}'"),
            "plugins",
            &GlobList::empty(),
        ))
    }

    /// Does the role want a person's approval for `public` on top of the plugin's rule?
    pub fn needs_approval(&self, public: &str) -> bool {
        matches!(self, Self::Role(r) if r.require_approval.is_match(public))
    }

    /// The grants a call of `plugin` acts with for this caller, when the role narrows them.
    pub fn narrowed(&self, plugin: &str) -> Option<&Arc<Grants>> {
        match self {
            Self::Role(r) => r.narrowed.get(plugin),
            _ => None,
        }
    }

    fn no_role(&self, client: &str) -> Box<RoleRefusal> {
        Box::new(RoleRefusal::NoRole {
            client: client.to_string(),
        })
    }
}

impl Role {
    fn not_in(&self, what: String, list: &'static str, patterns: &GlobList) -> Box<RoleRefusal> {
        Box::new(RoleRefusal::NotInRole {
            role: self.name.clone(),
            what,
            plugins: self.plugins.clone(),
            groups: self
                .groups
                .iter()
                .map(|(p, g)| format!("{p}/{g}"))
                .collect(),
            list,
            patterns: patterns.patterns().to_vec(),
        })
    }

    /// Does this role reach any part of `plugin` (so narrowing it means something)?
    fn uses(&self, plugin: &PluginConfig) -> bool {
        self.plugins.contains(&plugin.name)
            || self.groups.iter().any(|(p, _)| *p == plugin.name)
            || !self.tools.patterns().is_empty()
            || !self.prompts.patterns().is_empty()
    }
}

/// The roles of a manifest and who has which.
#[derive(Debug, Clone, Default)]
pub struct Roles {
    pub roles: BTreeMap<String, Arc<Role>>,
    /// Client name -> role name.
    pub clients: BTreeMap<String, String>,
    /// `[server] local_role`: stdio and unauthenticated HTTP; `None`: everything.
    pub local: Option<String>,
}

impl Roles {
    /// What the caller named `client` (`None`: stdio or unauthenticated HTTP) may use.
    pub fn access(&self, client: Option<&str>) -> Access {
        let named = match client {
            None => self.local.as_deref(),
            Some(_) if self.roles.is_empty() => None,
            Some(c) => match self.clients.get(c) {
                Some(role) => Some(role.as_str()),
                None => return Access::NoRole(Arc::from(c)),
            },
        };
        match named.and_then(|n| self.roles.get(n)) {
            Some(role) => Access::Role(role.clone()),
            None => Access::All,
        }
    }

    /// Each role and its clients, and the named clients that get nothing: for `warden check`
    /// and the start-up log.
    pub fn report(&self, http: &super::HttpConfig) -> Vec<String> {
        let roles = self;
        if roles.roles.is_empty() {
            return Vec::new();
        }
        let mut lines = Vec::new();
        for (name, role) in &roles.roles {
            let clients: Vec<&str> = roles
                .clients
                .iter()
                .filter(|(_, r)| *r == name)
                .map(|(c, _)| c.as_str())
                .collect();
            lines.push(format!(
            "role '{name}': plugins {:?}, groups {:?}, tools {:?}, prompts {:?}; narrows {:?}; clients {:?}{}",
            role.plugins,
            role.groups.iter().map(|(p, g)| format!("{p}/{g}")).collect::<Vec<_>>(),
            role.tools.patterns(),
            role.prompts.patterns(),
            role.narrowed.keys().collect::<Vec<_>>(),
            clients,
            if roles.local.as_deref() == Some(name) { " and the local operator (stdio)" } else { "" }
        ));
        }
        let named = http.clients.iter().map(|(n, _)| n.as_str()).chain(
            http.oauth
                .iter()
                .flat_map(|o| o.clients.iter().map(|c| c.name.as_str())),
        );
        for client in roles.roleless(named) {
            lines.push(format!(
                "client '{client}' has no role: it gets nothing (set role = \"NAME\" in its table)"
            ));
        }
        lines
    }

    /// Named clients (of `all`) that get nothing: roles are defined and they have none.
    pub fn roleless<'a>(&self, all: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
        if self.roles.is_empty() {
            return Vec::new();
        }
        all.filter(|c| !self.clients.contains_key(*c)).collect()
    }
}

impl Validator<'_> {
    /// Validate `[roles]` against the loaded `plugins`; `grant_specs` are each plugin's
    /// `grants` as written, which a narrowing is merged with.
    pub(super) fn roles(
        &mut self,
        specs: BTreeMap<String, Spanned<super::schema::RoleSpec>>,
        plugins: &[PluginConfig],
        grant_specs: &BTreeMap<String, super::schema::GrantsSpec>,
        scope: &super::plugin_grants::PluginScope<'_>,
    ) -> BTreeMap<String, Arc<Role>> {
        let mut roles = BTreeMap::new();
        for (name, spec) in specs {
            let span = spec.span();
            let spec = spec.into_inner();
            let key = format!("roles.{name}");
            if !valid_name(&name) {
                self.error(
                    span.clone(),
                    format!("roles: role name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"),
                );
            }
            let mut whole = Vec::new();
            for p in &spec.plugins {
                if plugins.iter().any(|q| &q.name == p.get_ref()) {
                    whole.push(p.get_ref().clone());
                } else {
                    self.error(
                        p.span(),
                        format!(
                            "{key}.plugins: no [[plugin]] is named \"{}\"; the plugins are: {}",
                            p.get_ref(),
                            names(plugins)
                        ),
                    );
                }
            }
            let mut groups = Vec::new();
            for g in &spec.groups {
                match g.get_ref().split_once('/') {
                    Some((p, group)) if plugins.iter().any(|q| q.name == p) && super::valid_group_name(group) => {
                        groups.push((p.to_string(), group.to_string()));
                    }
                    _ => self.error(g.span(), format!("{key}.groups: \"{}\" must be PLUGIN/GROUP naming a [[plugin]] and one of its tool groups (warden check lists them), like \"browser/core\"", g.get_ref())),
                }
            }
            let (line, _) = self.line_col(span.start);
            let mut role = Role {
                name: name.clone(),
                plugins: whole,
                groups,
                tools: self.globs(&format!("{key}.tools"), &spec.tools),
                prompts: self.globs(&format!("{key}.prompts"), &spec.prompts),
                require_approval: self
                    .globs(&format!("{key}.require_approval"), &spec.require_approval),
                narrowed: BTreeMap::new(),
                line,
            };
            for (plugin, narrow) in spec.narrow {
                let Some(config) = plugins.iter().find(|p| p.name == plugin) else {
                    self.error(narrow.span(), format!("{key}.narrow: no [[plugin]] is named \"{plugin}\"; the plugins are: {}", names(plugins)));
                    continue;
                };
                if !role.uses(config) {
                    self.error(narrow.span(), format!("{key}.narrow.{plugin}: the role uses no part of plugin '{plugin}' (add it to plugins, groups or tools), so there is nothing to narrow"));
                    continue;
                }
                let written = grant_specs.get(&plugin).cloned().unwrap_or_default();
                if let Some(grants) =
                    self.narrow_grants(&name, &key, config, written, narrow, scope)
                {
                    role.narrowed.insert(plugin, Arc::new(grants));
                }
            }
            roles.insert(name, Arc::new(role));
        }
        roles
    }

    /// A client's `role = "NAME"`: a defined role, or an error naming the defined ones.
    pub(super) fn client_role(
        &mut self,
        key: &str,
        role: Option<&Spanned<String>>,
        roles: &BTreeMap<String, Arc<Role>>,
    ) -> Option<String> {
        let role = role?;
        if roles.contains_key(role.get_ref()) {
            return Some(role.get_ref().clone());
        }
        let defined = if roles.is_empty() {
            "no [roles.NAME] is defined".to_string()
        } else {
            format!(
                "defined roles: {}",
                roles.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        };
        self.error(
            role.span(),
            format!(
                "{key}: unknown role \"{}\" ({defined}); define it as [roles.{}]",
                role.get_ref(),
                role.get_ref()
            ),
        );
        None
    }
}

fn names(plugins: &[PluginConfig]) -> String {
    plugins
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
