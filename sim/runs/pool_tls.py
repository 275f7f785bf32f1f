"""TLS towards an existing Dask scheduler (``--scheduler`` with ``--tls-ca-file``, ``--tls-cert``,
``--tls-key``, the options ``dask scheduler`` and ``dask worker`` take): checked here, where they
enter, so that a missing file or a key that does not fit is one line before any connection.

Without these options the client uses Dask's own configuration (``distributed.comm.tls.*``,
e.g. ``$DASK_DISTRIBUTED__COMM__TLS__CA_FILE``), as any Dask client does."""

import ssl


class TlsError(ValueError):
    """The TLS options are inconsistent or their files unusable; one line."""


class SchedulerAddress(str):
    """A scheduler's address that carries the ``distributed.security.Security`` to reach it
    with (the runs pass addresses along as strings)."""

    security = None

    def __new__(cls, address: str, security=None):
        self = super().__new__(cls, address)
        self.security = security
        return self


def secured_address(address: str, ca_file: str | None, cert: str | None,
                    key: str | None) -> SchedulerAddress:
    """``address`` (a ``tls://`` one; no scheme means tls://) with mutual TLS: the scheduler
    is checked against ``ca_file`` and we show ``cert`` (with ``key``, unless the certificate
    file holds it)."""
    if not (ca_file and cert):
        raise TlsError("--tls-ca-file and --tls-cert go together (with --tls-key unless the "
                       "key is in the certificate file)")
    scheme, sep, _ = address.partition("://")
    if not sep:
        address = "tls://" + address
    elif scheme != "tls":
        raise TlsError(f"--tls-ca-file and --tls-cert need a tls:// scheduler address, "
                       f"not {address}")
    for option, path in (("--tls-ca-file", ca_file), ("--tls-cert", cert), ("--tls-key", key)):
        if path is not None:
            try:
                with open(path, "rb") as f:
                    f.read(1)
            except OSError as e:
                raise TlsError(f"cannot read {option} {path}: {e.strerror or e}") from None
    try:
        ssl.create_default_context(cafile=ca_file)
    except (ssl.SSLError, ValueError) as e:
        raise TlsError(f"--tls-ca-file {ca_file} holds no usable certificate: "
                       f"{ssl_reason(e)}") from None
    try:
        ssl.create_default_context().load_cert_chain(cert, key)
    except (ssl.SSLError, ValueError) as e:
        raise TlsError(f"--tls-cert {cert} with {'--tls-key ' + key if key else 'its key'}: "
                       f"{ssl_reason(e)}") from None
    from distributed.security import Security
    return SchedulerAddress(address, Security(require_encryption=True, tls_ca_file=ca_file,
                                              tls_client_cert=cert, tls_client_key=key))


def dask_tls_configured() -> bool:
    """Whether Dask's configuration names a CA and a client certificate (what a tls://
    scheduler needs when the options do not)."""
    import dask
    return bool(dask.config.get("distributed.comm.tls.ca-file", None)
                and dask.config.get("distributed.comm.tls.client.cert", None))


def ssl_reason(e: Exception) -> str:
    reason = getattr(e, "reason", None) or " ".join(str(e).split())
    return str(reason).replace("_", " ").lower() or type(e).__name__
