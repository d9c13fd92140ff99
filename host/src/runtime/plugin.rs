//! One loaded WebAssembly plugin: its compiled component, its tools, and the instances that
//! serve its calls. An instance serves one conversation and never another: a call (tool,
//! resource read, prompt, completion) runs in an instance of its own, either the one its
//! conversation's last call left idle or a fresh one; calls of any number of clients, and
//! parallel calls of one client, run side by side up to `limits.concurrency`. So no memory a
//! plugin keeps is ever seen by another client's call. The places, and the room for idle
//! instances, are shared fairly among clients (`fair_queue.rs`, `fair_share.rs`). What must
//! outlive a call lives in the host (`warden:plugin/state`, per conversation): an instance's
//! memory is only a cache, gone when it idles out, traps or meets a parallel call. Fresh
//! instances are made ahead of calls (wasmtime's pooling allocator and copy-on-write memory
//! images make each a matter of microseconds); reusing an idle one saves a language runtime's
//! warm-up (a JavaScript or Python call on a fresh instance costs about a millisecond more).

use super::bindings::{PromptInfo, ResourceInfo, ResourceTemplate, ToolError, ToolInfo};
use super::call::CallContext;
use super::engine::Runtime;
use super::entry::{Entry, Exit, Listing};
use super::fair_queue::FairQueue;
use super::group_bindings::ToolGroup;
use super::kinds::{Bound, Pre};
use super::store_data::PluginState;
use super::tiers::{Compiled, Optimizing};
use crate::audit::Outcome;
use crate::capabilities::HostServices;
use crate::capabilities::conversation::Owner;
use crate::manifest::{Grants, PluginConfig};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use wasmtime::Store;

/// After a client cancels, a call gets this long to notice `context.cancelled()` and return
/// by itself before the host interrupts it.
pub const CANCEL_GRACE: Duration = Duration::from_millis(100);

/// Instances a plugin keeps made ahead of its calls.
pub const SPARES: usize = 2;
/// How long an instance waits for its conversation's next call before it is dropped.
pub const IDLE_TTL: Duration = Duration::from_secs(30);
/// How often idle instances are checked for their time-to-live.
const IDLE_SWEEP: Duration = Duration::from_secs(5);

/// Why a call did not produce a result.
#[derive(Debug)]
pub enum CallFailure {
    /// The tool reported a failure.
    Tool(ToolError),
    Timeout(Duration),
    MemoryLimit(u64),
    Crashed(String),
    Cancelled,
    /// A result with structured or binary content over `limits.output` (size, limit).
    OutputTooLarge(u64, u64),
    /// The tool needs the user's approval and did not get it.
    NotApproved(String),
    /// The tool's group is not served to this caller: why, and what turns it on.
    GroupOff(String),
    /// The tool's group is not served: the plugin lacks every grant it uses (which to add).
    Ungranted(String),
    /// The caller's role does not include it.
    NotInRole(Box<crate::manifest::RoleRefusal>),
    /// The client's calls waited in its line for the whole `limits.queue_timeout` while
    /// `limits.concurrency` calls ran (the limit, the wait).
    Busy(usize, Duration),
}

impl CallFailure {
    pub fn outcome(&self) -> Outcome {
        match self {
            Self::Tool(_) | Self::OutputTooLarge(..) => Outcome::ToolError,
            Self::NotApproved(_)
            | Self::Busy(..)
            | Self::GroupOff(_)
            | Self::Ungranted(_)
            | Self::NotInRole(_) => Outcome::Denied,
            Self::Timeout(_) => Outcome::Timeout,
            Self::MemoryLimit(_) | Self::Crashed(_) => Outcome::Trap,
            Self::Cancelled => Outcome::Cancelled,
        }
    }

    /// The text an agent reads: what happened and what to do.
    pub fn message(&self, plugin: &str) -> String {
        match self {
            Self::Tool(ToolError::InvalidArguments(m)) => format!("invalid arguments: {m}"),
            Self::Tool(ToolError::AccessDenied(m)) => format!("access denied: {m}"),
            Self::Tool(ToolError::NotFound(m)) => format!("not found: {m}"),
            Self::Tool(ToolError::Timeout(m)) => format!("timeout: {m}"),
            Self::Tool(ToolError::Failed(m)) => format!("failed: {m}"),
            Self::Timeout(limit) => format!(
                "timeout: plugin '{plugin}' exceeded its call_timeout of {} (limits.call_timeout in the manifest); the call was stopped",
                humantime::format_duration(*limit)
            ),
            Self::MemoryLimit(limit) => format!(
                "plugin crashed: plugin '{plugin}' exceeded its memory limit of {} (limits.memory in the manifest) in this call; other calls are not affected",
                bytesize::ByteSize::b(*limit).display().iec()
            ),
            Self::Crashed(detail) => format!(
                "plugin crashed: plugin '{plugin}' trapped ({detail}) in this call; other calls are not affected"
            ),
            Self::Cancelled => "cancelled: the client cancelled the call".to_string(),
            Self::NotApproved(why) => format!("access denied: {why}"),
            Self::GroupOff(why) => format!("not enabled: {why}"),
            Self::Ungranted(why) => format!("access denied: {why}"),
            Self::NotInRole(refusal) => refusal.to_string(),
            Self::OutputTooLarge(size, limit) => format!(
                "failed: plugin '{plugin}' returned {size} bytes, over its output limit of {limit} bytes (limits.output in the manifest); ask for less, e.g. a smaller range or page"
            ),
            Self::Busy(limit, waited) => format!(
                "limit reached: plugin '{plugin}' runs {limit} calls at once (limits.concurrency in the manifest), shared fairly among its clients, and this call waited {} (limits.queue_timeout) for its client's turn; let your earlier calls finish, retry later, or ask the admin to raise limits.concurrency",
                humantime::format_duration(*waited)
            ),
        }
    }
}

/// One instance of the plugin: it serves the calls of one conversation, one at a time.
struct Instance {
    store: Store<PluginState>,
    bindings: Bound,
}

/// Instances between two calls of their conversation.
#[derive(Default)]
struct Idle {
    /// Conversation key -> its instance, when its last call ended, and whose it is.
    by_conversation: HashMap<Arc<str>, (Instance, Instant, Owner)>,
    /// A task drops the instances that idled out.
    sweeping: bool,
}

/// What makes and keeps instances; shared with the tasks that make them ahead of calls and
/// drop the idle ones.
struct Factory {
    /// The machine code instances are made of: baseline code until the optimized code of a
    /// large component's first start replaces it (`tiers.rs`).
    code: RwLock<Arc<Code>>,
    services: Arc<HostServices>,
    config: PluginConfig,
    /// Instances made and not yet used.
    spares: Mutex<Vec<Instance>>,
    /// A task is making spares.
    filling: AtomicBool,
    idle: Mutex<Idle>,
}

/// A compiled component, linked for the engine it was compiled for.
struct Code {
    engine: wasmtime::Engine,
    pre: Pre,
}

impl Factory {
    fn code(&self) -> Arc<Code> {
        self.code.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether `instance` is of the code instances are now made of.
    fn current(&self, instance: &Instance) -> bool {
        wasmtime::Engine::same(instance.store.engine(), &self.code().engine)
    }

    /// Make every instance from now on of `code`: the spares and idle instances of the old
    /// code are dropped (an instance's memory is only a cache) and new spares made.
    fn replace(self: &Arc<Self>, code: Code) {
        *self.code.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(code);
        let spares = std::mem::take(&mut *self.spares.lock().unwrap_or_else(|p| p.into_inner()));
        let idle = std::mem::take(
            &mut self
                .idle
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .by_conversation,
        );
        drop((spares, idle));
        self.refill();
    }

    /// A fresh instance acting with `grants` (the plugin's, or a role's narrower ones).
    async fn instantiate(&self, grants: &Arc<Grants>) -> wasmtime::Result<Instance> {
        let code = self.code();
        let (stdio, pipes) = code.pre.pipes().unzip();
        let state = PluginState::new(&self.config, &self.services, grants.clone(), stdio);
        let mut store = Store::new(&code.engine, state);
        store.limiter(|s| &mut s.limiter);
        // Yield to the async runtime at every epoch tick: a spinning guest then shares the
        // thread, and dropping its call future (timeout, cancel) stops it.
        store.set_epoch_deadline(1);
        store.epoch_deadline_async_yield_and_update(1);
        let bindings = code.pre.instantiate(&mut store, pipes).await?;
        Ok(Instance { store, bindings })
    }

    /// An instance for a call of `conversation`: the one its last call left idle, else a
    /// fresh one (made ahead if there is one, else now; the spares are then topped up in the
    /// background).
    ///
    /// A caller whose role narrows the plugin's grants (`narrowed`) gets an instance made with
    /// those grants: its WASI preopens and capability contexts hold only them. Spares are
    /// made with the plugin's own grants, so it never gets one; an idle instance serves it
    /// only if it was made with the same grants.
    async fn take(
        self: &Arc<Self>,
        conversation: &str,
        narrowed: Option<&Arc<Grants>>,
    ) -> wasmtime::Result<Instance> {
        let wanted = narrowed.unwrap_or(&self.config.grants);
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .by_conversation
            .remove(conversation);
        if let Some((instance, ..)) = idle
            && Arc::ptr_eq(&instance.store.data().grants, wanted)
            && self.current(&instance)
        {
            return Ok(instance);
        }
        if narrowed.is_some() {
            return self.instantiate(wanted).await;
        }
        let spare = self
            .spares
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .filter(|spare| self.current(spare));
        self.refill();
        match spare {
            Some(instance) => Ok(instance),
            None => self.instantiate(wanted).await,
        }
    }

    /// Keep `instance`, whose call of `conversation` (of client `owner`) ended cleanly, for
    /// that conversation's next call. One idle instance per conversation (a second, from a
    /// parallel call, is dropped), at most `limits.concurrency` in all: past it, the one idle
    /// longest of this client goes if it keeps more than its share, else of the client that
    /// keeps the most (`fair_share.rs`).
    fn keep(self: &Arc<Self>, conversation: Arc<str>, owner: Owner, instance: Instance) {
        // Whatever is dropped is dropped after the lock is released: freeing an instance
        // returns its memory to the pool, which other calls' `take` should not wait for.
        if !self.current(&instance) {
            return;
        }
        let dropped = {
            let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
            if idle.by_conversation.contains_key(&conversation) {
                drop(idle);
                drop(instance);
                return;
            }
            let oldest = (idle.by_conversation.len() >= self.config.limits.concurrency)
                .then(|| {
                    let kept = idle.by_conversation.iter().map(|(key, (_, since, owner))| {
                        crate::fair_share::Held {
                            key,
                            owner,
                            weight: 1,
                            used: *since,
                        }
                    });
                    let cap = u64::try_from(self.config.limits.concurrency).unwrap_or(u64::MAX);
                    crate::fair_share::victim(kept, &owner, 1, cap).cloned()
                })
                .flatten()
                .and_then(|k| idle.by_conversation.remove(&k));
            idle.by_conversation
                .insert(conversation, (instance, Instant::now(), owner));
            if !idle.sweeping {
                idle.sweeping = true;
                tokio::spawn(sweep_idle(Arc::downgrade(self)));
            }
            oldest
        };
        drop(dropped);
    }

    fn idle_count(&self) -> usize {
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .by_conversation
            .len()
    }

    fn refill(self: &Arc<Self>) {
        if self.filling.swap(true, Ordering::AcqRel) {
            return;
        }
        let factory = self.clone();
        tokio::spawn(async move {
            while factory
                .spares
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .len()
                < SPARES
            {
                match factory.instantiate(&factory.config.grants).await {
                    // One made of code replaced meanwhile is dropped, and another made.
                    Ok(instance) if !factory.current(&instance) => {}
                    Ok(instance) => factory
                        .spares
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(instance),
                    Err(e) => {
                        tracing::debug!(plugin = %factory.config.name, "no spare instance made: {e}");
                        break;
                    }
                }
            }
            factory.filling.store(false, Ordering::Release);
        });
    }
}

/// `component` (compiled for `engine`) linked by `linker` and sorted into its kind.
fn link_code(
    engine: &wasmtime::Engine,
    linker: &wasmtime::component::Linker<PluginState>,
    component: &wasmtime::component::Component,
    bytes: &[u8],
    output_limit: u64,
) -> Result<Code, ComponentError> {
    let instance_pre = linker
        .instantiate_pre(component)
        .map_err(|e| ComponentError::Imports(e.to_string()))?;
    let pre = Pre::new(instance_pre, component, engine, bytes, output_limit)
        .map_err(ComponentError::Exports)?;
    Ok(Code {
        engine: engine.clone(),
        pre,
    })
}

/// Wait for the optimized code of a plugin that started on baseline code, and make its
/// instances of it from then on. A failure leaves the plugin on baseline code, said in the
/// log: it answers as before, slower.
async fn replace_when_optimized(
    runtime: Arc<Runtime>,
    factory: std::sync::Weak<Factory>,
    optimizing: Optimizing,
) {
    let Some(name) = factory.upgrade().map(|f| f.config.name.clone()) else {
        return;
    };
    let replaced = async {
        let component = runtime.optimized(&optimizing, &name).await?;
        let Some(factory) = factory.upgrade() else {
            return Ok(false);
        };
        let code = link_code(
            &runtime.engine,
            &runtime.linker,
            &component,
            optimizing.bytes(),
            factory.config.limits.output,
        )
        .map_err(|e| e.to_string())?;
        factory.replace(code);
        Ok::<_, String>(true)
    };
    match replaced.await {
        Ok(true) => tracing::info!(
            "plugin '{name}': optimized code in use {:.1} s after its start on baseline code",
            optimizing.elapsed().as_secs_f64()
        ),
        Ok(false) => {}
        Err(e) => tracing::warn!(
            "plugin '{name}': its optimized code could not be made ({e}); it keeps serving on baseline code, which is slower"
        ),
    }
}

/// Drop the instances that waited longer than [`IDLE_TTL`] for their conversation's next
/// call; ends when none is idle or the plugin is gone.
async fn sweep_idle(factory: std::sync::Weak<Factory>) {
    loop {
        tokio::time::sleep(IDLE_SWEEP).await;
        let Some(factory) = factory.upgrade() else {
            return;
        };
        let expired: Vec<(Instance, Instant, Owner)> = {
            let mut idle = factory.idle.lock().unwrap_or_else(|p| p.into_inner());
            let old: Vec<Arc<str>> = idle
                .by_conversation
                .iter()
                .filter(|(_, (_, since, _))| since.elapsed() >= IDLE_TTL)
                .map(|(k, _)| k.clone())
                .collect();
            let expired = old
                .iter()
                .filter_map(|k| idle.by_conversation.remove(k))
                .collect();
            if idle.by_conversation.is_empty() {
                idle.sweeping = false;
                drop(idle);
                drop(expired);
                return;
            }
            expired
        };
        drop(expired);
    }
}

/// How many calls of a plugin run and wait, and how many instances wait for their
/// conversation's next call, for the metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Load {
    pub in_flight: usize,
    pub queued: usize,
    pub idle: usize,
}

pub struct WasmPlugin {
    pub config: PluginConfig,
    /// Every tool the plugin lists (validated); the registry applies the manifest's filter and prefix.
    pub tools: Vec<ToolInfo>,
    pub resources: Vec<ResourceInfo>,
    pub templates: Vec<ResourceTemplate>,
    pub prompts: Vec<PromptInfo>,
    /// The tool groups it declares (`warden:plugin/groups`), checked against `tools`.
    pub groups: Vec<ToolGroup>,
    /// Interfaces the component imports, e.g. `warden:capture/http@0.1.0`.
    pub imports: Vec<String>,
    factory: Arc<Factory>,
    /// `limits.concurrency` places, shared fairly among clients.
    places: FairQueue,
}

/// Why a component could not be loaded as a plugin; each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum ComponentError {
    /// Its memories need more than `limits.memory` before the first instruction.
    #[error("{0}")]
    Memory(String),
    #[error("not a valid WebAssembly component: {0}")]
    NotAComponent(String),
    #[error(
        "imports something this host does not provide (build it against wit/ of this warden): {0}"
    )]
    Imports(String),
    /// Neither the `warden:plugin/plugin` world nor plain functions (`kinds.rs`).
    #[error("{0}")]
    Exports(String),
    /// Its load-time listing failed or named something invalid.
    #[error("{0}")]
    Listing(String),
}

impl WasmPlugin {
    /// Compile (or load from cache), instantiate, and ask the plugin for its tools. A large
    /// component found in no cache starts on baseline code, replaced by its optimized code
    /// when that is compiled (`tiers.rs`).
    pub async fn load(
        runtime: &Arc<Runtime>,
        config: PluginConfig,
        bytes: &[u8],
        services: Arc<HostServices>,
    ) -> Result<Self, ComponentError> {
        if let Some(error) = super::initial_memory::check(bytes, config.limits.memory) {
            return Err(ComponentError::Memory(error));
        }
        let compiled = runtime
            .compile_for_start(&config.name, bytes)
            .await
            .map_err(|e| ComponentError::NotAComponent(e.to_string()))?;
        let (component, optimizing) = match compiled {
            Compiled::Optimized(component) => (component, None),
            Compiled::Baseline(component, optimizing) => (component, Some(optimizing)),
        };
        let engine = component.engine();
        let linker = runtime.linker_for(engine);
        let imports = component
            .component_type()
            .imports(engine)
            .map(|(name, _)| name.to_string())
            .collect();
        let code = link_code(engine, linker, &component, bytes, config.limits.output)?;

        let places = FairQueue::new(config.limits.concurrency);
        let mut plugin = Self {
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            groups: Vec::new(),
            imports,
            factory: Arc::new(Factory {
                code: RwLock::new(Arc::new(code)),
                services,
                config: config.clone(),
                spares: Mutex::default(),
                filling: AtomicBool::new(false),
                idle: Mutex::default(),
            }),
            config,
            places,
        };
        let listing = plugin.describe().await.map_err(ComponentError::Listing)?;
        plugin.tools = listing.tools;
        plugin.resources = listing.resources;
        plugin.templates = listing.templates;
        plugin.prompts = listing.prompts;
        plugin.groups = listing.groups;
        if let Some(optimizing) = optimizing {
            tokio::spawn(replace_when_optimized(
                runtime.clone(),
                Arc::downgrade(&plugin.factory),
                optimizing,
            ));
        }
        Ok(plugin)
    }

    /// Ask a fresh instance for its tools, resources, templates and prompts (at load),
    /// through the same guarded path as every other entry.
    async fn describe(&self) -> Result<Listing, String> {
        let listing = self
            .enter(Entry::Describe, CallContext::default())
            .await
            .map_err(|f| match f {
                CallFailure::Crashed(detail) => {
                    format!("trapped while listing its tools: {detail}")
                }
                other => other.message(&self.config.name),
            })?;
        let Exit::Listing(listing) = listing else {
            return Err("answered a listing with something else".into());
        };
        for info in &listing.tools {
            validate_tool(info)?;
        }
        for prompt in &listing.prompts {
            validate_name("prompt", &prompt.name)?;
        }
        super::group_check::validate(&listing.groups, &listing.tools)?;
        Ok(*listing)
    }

    /// For a component of plain exported functions (written for another host): each tool's
    /// name, before the manifest's prefix, and the function it calls.
    pub fn plain_functions(&self) -> Option<Vec<(String, String)>> {
        self.factory.code().pre.plain_functions()
    }

    /// What kind of component serves the tools, when it is not the `warden:plugin` world.
    pub fn served_as(&self) -> Option<&'static str> {
        self.factory.code().pre.served_as()
    }

    /// Calls running and calls waiting for a place.
    pub fn load_now(&self) -> Load {
        let calls = self.places.census();
        Load {
            in_flight: calls.running,
            queued: calls.waiting,
            idle: self.factory.idle_count(),
        }
    }

    /// The one way into the plugin: every export (tools, resources, prompts, completions, the
    /// load-time listing) runs here, in an instance of its own that serves only the call's
    /// conversation, under the plugin's concurrency limit, its time limit and the client's
    /// cancellation. Output caps and audit lines are the registry's (`executor.rs`), applied
    /// to whatever comes out of here.
    pub async fn enter(&self, entry: Entry<'_>, call: CallContext) -> Result<Exit, CallFailure> {
        let limits = &self.config.limits;
        let cancel = call.cancel.clone();
        let place = tokio::select! {
            place = self.places.acquire(call.conversation.owner()) => place,
            () = tokio::time::sleep(limits.queue_timeout) => {
                return Err(CallFailure::Busy(limits.concurrency, limits.queue_timeout));
            }
            () = cancel.cancelled() => return Err(CallFailure::Cancelled),
        };
        // The limit is for the plugin's work: time spent waiting for the client's answers
        // (a user reading a form) does not count.
        let wait = call.wait.clone();
        let start = tokio::time::Instant::now();
        let work = self.run(entry, call);
        tokio::pin!(work);
        let result = tokio::select! {
            // A plugin that gives up because it saw the cancellation (`context.cancelled`)
            // reports an error of its own; the call was cancelled all the same.
            result = &mut work => match result {
                Err(CallFailure::Tool(_)) if cancel.is_cancelled() => Err(CallFailure::Cancelled),
                other => other,
            },
            () = wait.expire(start, limits.call_timeout) => Err(CallFailure::Timeout(limits.call_timeout)),
            () = async { cancel.cancelled().await; tokio::time::sleep(CANCEL_GRACE).await } => Err(CallFailure::Cancelled),
        };
        // When a branch other than `work` wins, `work` (and the instance it owns) is dropped
        // here: the guest stops at its next epoch yield, and the instance is never reused.
        drop(place);
        result
    }

    async fn run(&self, entry: Entry<'_>, call: CallContext) -> Result<Exit, CallFailure> {
        let conversation: Arc<str> = Arc::from(call.conversation.key());
        let owner = call.conversation.owner().clone();
        let narrowed = call.access.narrowed(&self.config.name).cloned();
        let mut instance = self
            .factory
            .take(&conversation, narrowed.as_ref())
            .await
            .map_err(|e| CallFailure::Crashed(format!("could not start an instance: {e}")))?;
        let live = &mut instance;
        live.store.data_mut().begin_call(&entry.label(), call);
        let result = live.bindings.call(&mut live.store, entry).await;
        live.store.data_mut().end_call();
        let reusable = instance.bindings.reusable();
        match result {
            // The guest returned: its instance may serve the conversation's next call, if
            // its kind allows.
            Ok(outcome) if !reusable => {
                drop(instance);
                outcome.map_err(CallFailure::Tool)
            }
            Ok(Ok(exit)) => {
                self.factory.keep(conversation, owner, instance);
                Ok(exit)
            }
            Ok(Err(error)) => {
                self.factory.keep(conversation, owner, instance);
                Err(CallFailure::Tool(error))
            }
            // A trap leaves the instance in an unknown state: it is dropped.
            Err(trap) => {
                let memory = instance.store.data().limiter.hit.load(Ordering::Relaxed);
                let detail = instance.store.data().scope.last_stderr();
                if memory {
                    Err(CallFailure::MemoryLimit(self.config.limits.memory))
                } else {
                    Err(CallFailure::Crashed(describe_trap(&trap, &detail)))
                }
            }
        }
    }
}

fn describe_trap(trap: &wasmtime::Error, stderr: &str) -> String {
    let kind = trap
        .downcast_ref::<wasmtime::Trap>()
        .map_or_else(|| trap.to_string(), ToString::to_string);
    let said = stderr.trim();
    if said.is_empty() {
        kind
    } else {
        format!("{kind}; its last words on stderr: {said}")
    }
}

fn validate_name(what: &str, name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
    {
        return Err(format!(
            "has a {what} named \"{name}\"; {what} names must match [a-zA-Z0-9_.-]{{1,64}}"
        ));
    }
    Ok(())
}

pub(crate) fn validate_tool(info: &ToolInfo) -> Result<(), String> {
    let name = &info.name;
    validate_name("tool", name)?;
    let check = |what: &str, text: &str| -> Result<(), String> {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(o))
                if o.get("type").and_then(|t| t.as_str()) == Some("object") =>
            {
                Ok(())
            }
            Ok(_) => Err(format!(
                "tool \"{name}\": its {what} schema must be a JSON Schema object with \"type\": \"object\""
            )),
            Err(e) => Err(format!(
                "tool \"{name}\": its {what} schema is not JSON: {e}"
            )),
        }
    };
    check("input", &info.input_schema)?;
    if let Some(out) = &info.output_schema {
        check("output", out)?;
    }
    Ok(())
}

/// Instances the plugins of a manifest may have alive at once: each plugin's calls in flight
/// (up to twice `limits.concurrency`: places lent to clients below their fair share,
/// `fair_queue.rs`), its instances idle between calls (`limits.concurrency`), the spares made
/// ahead of calls, and one more for the load-time listing.
pub fn pool_instances(manifest: &crate::manifest::Manifest) -> u32 {
    let total: usize = manifest
        .plugins
        .iter()
        .map(|p| 3 * p.limits.concurrency + SPARES + 1)
        .sum();
    u32::try_from(total).unwrap_or(u32::MAX)
}
