"""The RDP capability (`warden:rdp/desktop`; import `rdp`): the generated bindings' functions
and types under the same names, each call raising `CapabilityError` instead of a bindings
`Err`. See docs/src/rdp.md."""

from ._capability import module_getattr

__getattr__ = module_getattr("rdp")
