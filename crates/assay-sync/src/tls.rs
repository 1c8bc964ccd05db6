//! TLS to the team database with rustls (ring). libpq's `sslmode` and `sslrootcert` are read from
//! the URL here because the Rust client knows only disable/prefer/require; whatever the mode
//! asked, an encrypted connection verifies the chain and the host name (verify-full).

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::{redact, Result, SyncError};

/// The URL without `sslmode`/`sslrootcert`, and a TLS connector when the mode asks for TLS.
pub(crate) fn split(url: &str) -> Result<(String, Option<MakeRustlsConnect>)> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), None));
    };
    let mut mode = None;
    let mut root = None;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("sslmode", v)) => mode = Some(v.to_string()),
            Some(("sslrootcert", v)) => root = Some(v.to_string()),
            _ => rest.push(pair),
        }
    }
    let plain = if rest.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    let tls = match mode.as_deref() {
        None | Some("disable") | Some("allow") | Some("prefer") => None,
        Some("require") | Some("verify-ca") | Some("verify-full") => {
            let root = root
                .or_else(|| std::env::var("ASSAY_TEAM_CA").ok())
                .ok_or_else(|| {
                    SyncError::Invalid(format!(
                        "{}: TLS needs the server's certificate authority: add sslrootcert=FILE or set ASSAY_TEAM_CA",
                        redact(url)
                    ))
                })?;
            Some(connector(&root)?)
        }
        Some(other) => {
            return Err(SyncError::Invalid(format!("sslmode={other} is not a mode")));
        }
    };
    Ok((plain, tls))
}

fn connector(root: &str) -> Result<MakeRustlsConnect> {
    let mut roots = rustls::RootCertStore::empty();
    let certs =
        CertificateDer::pem_file_iter(root).map_err(|e| SyncError::Tls(format!("{root}: {e}")))?;
    for cert in certs {
        let cert = cert.map_err(|e| SyncError::Tls(format!("{root}: {e}")))?;
        roots
            .add(cert)
            .map_err(|e| SyncError::Tls(format!("{root}: {e}")))?;
    }
    if roots.is_empty() {
        return Err(SyncError::Tls(format!(
            "{root}: no certificate in the file"
        )));
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| SyncError::Tls(e.to_string()))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// A failed connection: the server's refusal, an untrusted certificate, or unreachable.
pub(crate) fn classify(e: postgres::Error, url: &str) -> SyncError {
    if e.as_db_error().is_some() {
        return SyncError::Db(e);
    }
    let detail = format!("{e:?}");
    if detail.contains("Certificate")
        || detail.contains("certificate")
        || detail.contains("InvalidDnsName")
    {
        return SyncError::Tls(format!("{}: {e} ({})", redact(url), short(&detail)));
    }
    SyncError::Offline(format!("{}: {e}", redact(url)))
}

fn short(s: &str) -> String {
    s.chars().take(200).collect()
}
