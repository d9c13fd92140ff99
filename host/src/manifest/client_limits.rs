//! `max_concurrent` and `rate` of a named HTTP client (`[server.http.clients.NAME]`, or an
//! OAuth client rule): how many requests it may have in flight and how fast it may send.

use super::validate::Validator;
use std::collections::BTreeMap;
use std::time::Duration;
use toml::Spanned;

/// Per-client limits of `[server.http.clients.NAME]`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClientLimits {
    pub max_concurrent: Option<usize>,
    pub rate: Option<Rate>,
}

/// `rate = "N/s"`: `count` requests per `per`, in bursts of up to `count`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub count: u32,
    pub per: Duration,
}

impl Rate {
    pub(super) fn parse(text: &str) -> Option<Self> {
        let (count, unit) = text.trim().split_once('/')?;
        let count = count.trim().parse::<u32>().ok().filter(|n| *n > 0)?;
        let per = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return None,
        };
        Some(Self { count, per })
    }
}

impl Validator<'_> {
    /// `max_concurrent` and `rate` of one named client (`key` is its table), into `limits`.
    pub(super) fn client_limits(
        &mut self,
        key: &str,
        name: &str,
        max_concurrent: Option<&Spanned<i64>>,
        rate: Option<&Spanned<String>>,
        limits: &mut BTreeMap<String, ClientLimits>,
    ) {
        let max_concurrent =
            max_concurrent.map(|n| self.count(&format!("{key}.max_concurrent"), Some(n), 1));
        let rate = rate.and_then(|r| {
            let rate = Rate::parse(r.get_ref());
            if rate.is_none() {
                self.error(
                    r.span(),
                    format!(
                        "{key}.rate: \"{}\" is not a rate; write it like \"20/s\" or \"600/min\"",
                        r.get_ref()
                    ),
                );
            }
            rate
        });
        if max_concurrent.is_some() || rate.is_some() {
            limits.insert(
                name.to_string(),
                ClientLimits {
                    max_concurrent,
                    rate,
                },
            );
        }
    }
}
