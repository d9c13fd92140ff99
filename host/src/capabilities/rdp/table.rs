//! The desktops of every plugin, kept by the host so they outlive a plugin instance. Each
//! plugin sees only its own, and of those only the ones its caller's client opened.

use super::connect::ConnectError;
use super::session::Desktop;
use crate::capabilities::conversation::Owner;
use crate::manifest::RdpHostConfig;
use ironrdp_connector::DesktopSize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Open desktops per plugin and client; beyond this, `open` asks the agent to close one of its
/// own.
pub const MAX_DESKTOPS: usize = 8;

/// Why `open` failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(
        "you already have {MAX_DESKTOPS} remote desktop sessions open in this plugin; close one with terminal_close first"
    )]
    Limit,
    #[error(transparent)]
    Connect(#[from] ConnectError),
}

/// One open desktop: the plugin and the client that opened it.
#[derive(Debug)]
struct Entry {
    plugin: String,
    owner: Owner,
    desktop: Arc<Desktop>,
}

impl Entry {
    fn of(&self, plugin: &str, owner: &Owner) -> bool {
        self.plugin == plugin && &self.owner == owner
    }

    fn is(&self, plugin: &str, owner: &Owner, id: &str) -> bool {
        self.of(plugin, owner) && self.desktop.id == id
    }
}

#[derive(Debug, Default)]
pub struct DesktopTable {
    /// Oldest first.
    desktops: Mutex<Vec<Entry>>,
    next: AtomicU64,
}

impl DesktopTable {
    fn count(&self, plugin: &str, owner: &Owner) -> usize {
        self.desktops
            .lock()
            .map_or(0, |d| d.iter().filter(|e| e.of(plugin, owner)).count())
    }

    pub async fn open(
        &self,
        plugin: &str,
        owner: &Owner,
        alias: &str,
        host: RdpHostConfig,
        size: DesktopSize,
    ) -> Result<Arc<Desktop>, OpenError> {
        if self.count(plugin, owner) >= MAX_DESKTOPS {
            return Err(OpenError::Limit);
        }
        let id = crate::replica::handle(format!(
            "rdp-{}",
            self.next.fetch_add(1, Ordering::Relaxed) + 1
        ));
        let desktop = Desktop::open(id, alias, host, size).await?;
        if let Ok(mut d) = self.desktops.lock() {
            d.push(Entry {
                plugin: plugin.to_string(),
                owner: owner.clone(),
                desktop: desktop.clone(),
            });
        }
        Ok(desktop)
    }

    /// `plugin`'s desktop `id`, if `owner` opened it.
    pub fn get(&self, plugin: &str, owner: &Owner, id: &str) -> Option<Arc<Desktop>> {
        self.desktops.lock().ok().and_then(|d| {
            d.iter()
                .find(|e| e.is(plugin, owner, id))
                .map(|e| e.desktop.clone())
        })
    }

    /// `plugin`'s desktops that `owner` opened, oldest first.
    pub fn list(&self, plugin: &str, owner: &Owner) -> Vec<Arc<Desktop>> {
        self.desktops.lock().map_or_else(
            |_| Vec::new(),
            |d| {
                d.iter()
                    .filter(|e| e.of(plugin, owner))
                    .map(|e| e.desktop.clone())
                    .collect()
            },
        )
    }

    /// Disconnect and forget one desktop, if `owner` opened it.
    pub async fn close(&self, plugin: &str, owner: &Owner, id: &str) {
        let taken = self.desktops.lock().ok().and_then(|mut d| {
            let at = d.iter().position(|e| e.is(plugin, owner, id))?;
            Some(d.remove(at).desktop)
        });
        if let Some(desktop) = taken {
            desktop.close().await;
        }
    }

    /// After a manifest reload: keep the desktops `keep(plugin, desktop)` accepts, disconnect
    /// the others. Returns (kept, closed).
    pub async fn retain(&self, keep: impl Fn(&str, &Desktop) -> bool) -> (usize, usize) {
        let dropped: Vec<_> = match self.desktops.lock() {
            Ok(mut d) => {
                let (kept, dropped): (Vec<_>, Vec<_>) =
                    d.drain(..).partition(|e| keep(&e.plugin, &e.desktop));
                *d = kept;
                dropped.into_iter().map(|e| e.desktop).collect()
            }
            Err(_) => Vec::new(),
        };
        futures::future::join_all(dropped.iter().map(|d| d.close())).await;
        (self.desktops.lock().map_or(0, |d| d.len()), dropped.len())
    }

    /// Disconnect every desktop (Warden is exiting).
    pub async fn close_all(&self) {
        let all: Vec<_> = self
            .desktops
            .lock()
            .map(|mut d| d.drain(..).map(|e| e.desktop).collect())
            .unwrap_or_default();
        futures::future::join_all(all.iter().map(|d| d.close())).await;
    }
}
