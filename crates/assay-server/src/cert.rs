//! The service's TLS certificate: the one given (`--cert`, `--key`), or one made for it on first
//! start and kept in its data folder. Members pin its SHA-256 at join, so a self-made
//! certificate is as safe as one from an authority, and a server with another is refused.

use std::path::Path;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::error::{Result, ServiceError};

pub struct ServerCert {
    pub chain: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
    /// SHA-256 of the leaf certificate, in hex: what members pin.
    pub pin: String,
}

pub fn pin_of(der: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(der))
}

fn io(path: &Path, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Internal(format!("{}: {e}", path.display()))
}

/// Loads `cert` and `key` (PEM), or the service's own pair in `dir`, made for `names` (host
/// names and addresses the service is reached at) when there is none yet.
pub fn load_or_make(
    dir: &Path,
    given: Option<(&Path, &Path)>,
    names: &[String],
) -> Result<ServerCert> {
    let (cert_path, key_path) = match given {
        Some((c, k)) => (c.to_path_buf(), k.to_path_buf()),
        None => {
            let c = dir.join("service-cert.pem");
            let k = dir.join("service-key.pem");
            if !c.exists() || !k.exists() {
                let made = rcgen::generate_simple_self_signed(names.to_vec())
                    .map_err(|e| ServiceError::Internal(format!("making a certificate: {e}")))?;
                write_private(&k, made.key_pair.serialize_pem().as_bytes())?;
                std::fs::write(&c, made.cert.pem()).map_err(|e| io(&c, e))?;
            }
            (c, k)
        }
    };
    let chain = CertificateDer::pem_file_iter(&cert_path)
        .map_err(|e| io(&cert_path, e))?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| io(&cert_path, e))?;
    let leaf = chain
        .first()
        .ok_or_else(|| io(&cert_path, "no certificate in the file"))?;
    let pin = pin_of(leaf.as_ref());
    let key = PrivateKeyDer::from_pem_file(&key_path).map_err(|e| io(&key_path, e))?;
    Ok(ServerCert { chain, key, pin })
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path).map_err(|e| io(path, e))?;
    f.write_all(bytes).map_err(|e| io(path, e))
}
