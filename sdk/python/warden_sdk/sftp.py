"""The SFTP capability (`warden:sftp/sftp`; import `sftp`): `list(host, path)`,
`stat`, `read(host, path, offset, length)`, `write(host, path, data, WriteMode.X)`, `mkdir`,
`remove`, `rename`, `realpath`, with the generated types (`FileStat`, `DirEntry`,
`WriteMode`, ...). Each call raises `CapabilityError` instead of a bindings `Err`."""

from ._capability import module_getattr

__getattr__ = module_getattr("sftp")
