//! One plugin instance's `wasi:http` context ([`HttpCtx`]) and the one hook that sends.

use super::send;
use super::services::HttpServices;
use crate::audit::GuestScope;
use crate::manifest::grants::Grants;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody, WasiHttpHooks};

/// One plugin instance's `wasi:http` context: whose grants, where audit lines go.
pub struct HttpCtx {
    grants: Arc<Grants>,
    scope: GuestScope,
    services: Arc<HttpServices>,
    in_flight: Arc<AtomicUsize>,
}

impl HttpCtx {
    pub fn new(grants: &Arc<Grants>, scope: &GuestScope, services: &Arc<HttpServices>) -> Self {
        Self {
            in_flight: services.in_flight(&grants.plugin),
            grants: grants.clone(),
            scope: scope.clone(),
            services: services.clone(),
        }
    }
}

type SendFuture = Box<
    dyn Future<
            Output = Result<
                (
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), Error>> + Send>,
                ),
                Error,
            >,
        > + Send,
>;

impl WasiHttpHooks for HttpCtx {
    // The host names the server: `Host` comes from the checked URL, never from the plugin.
    fn set_host_header(&mut self) -> bool {
        false
    }

    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> SendFuture {
        let job = send::Outgoing {
            grants: self.grants.clone(),
            scope: self.scope.clone(),
            services: self.services.clone(),
            in_flight: self.in_flight.clone(),
            options: options.unwrap_or_default(),
        };
        Box::new(async move {
            let response = job.run(request).await?;
            let done: Box<dyn Future<Output = Result<(), Error>> + Send> =
                Box::new(async { Ok(()) });
            Ok((response, done))
        })
    }
}
