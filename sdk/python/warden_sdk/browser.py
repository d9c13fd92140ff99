"""The browser capability (`warden:browser/browser`; import `browser`): the generated
bindings' functions and types under the same names (`open_page`, `Page`, `WaitUntil`, ...),
each call raising `CapabilityError` instead of a bindings `Err`. See the Rust SDK's
`browser` module and docs/src/browser.md for what each call does."""

from ._capability import module_getattr

__getattr__ = module_getattr("browser")
