//! HTTPS to the team service with its certificate pinned: the connection is refused before any
//! credential is sent unless the server shows exactly the certificate pinned at join.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::service::wire::Refusal;
use crate::{Result, SyncError};

/// Whose message a pin mismatch carries, to tell it from other TLS failures.
const NOT_PINNED: &str = "the server's certificate is not the one pinned when you joined";

#[derive(Debug)]
struct Pinned {
    pin: String,
    provider: Arc<CryptoProvider>,
}

pub(crate) fn pin_of(der: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(der))
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        if pin_of(end_entity.as_ref()) == self.pin {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(NOT_PINNED.into()))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// An HTTP client that talks only to a server showing the certificate with SHA-256 `pin`.
fn http_client(pin: &str) -> Result<reqwest::blocking::Client> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| SyncError::Tls(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Pinned {
            pin: pin.to_string(),
            provider,
        }))
        .with_no_client_auth();
    reqwest::blocking::Client::builder()
        .use_preconfigured_tls(tls)
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(600))
        // Under the service's 30 s before it closes an idle connection: a sync must not send
        // on a connection the service is closing (hyper retries only what it never sent).
        .pool_idle_timeout(Duration::from_secs(20))
        .build()
        .map_err(|e| SyncError::Tls(e.to_string()))
}

/// A connection to one team service, with or without a member's credential.
pub struct ServiceClient {
    base: String,
    http: reqwest::blocking::Client,
    credential: Option<String>,
}

impl ServiceClient {
    /// A client for the service at `url` whose certificate has SHA-256 `pin`. One HTTP client
    /// per service and pin serves the whole process, so a replica syncing every few seconds
    /// keeps its connection (and its TLS session) instead of a handshake and a runtime thread
    /// per sync: over a 50 ms link the handshake alone is two round trips.
    pub fn new(url: &str, pin: &str) -> Result<Self> {
        static CLIENTS: OnceLock<Mutex<HashMap<(String, String), reqwest::blocking::Client>>> =
            OnceLock::new();
        let key = (url.to_string(), pin.to_ascii_lowercase());
        let mut clients = CLIENTS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let http = match clients.get(&key) {
            Some(c) => c.clone(),
            None => {
                let c = http_client(&key.1)?;
                clients.insert(key, c.clone());
                c
            }
        };
        Ok(Self {
            base: url.trim_end_matches('/').to_string(),
            http,
            credential: None,
        })
    }

    pub fn with_credential(mut self, credential: &str) -> Self {
        self.credential = Some(credential.to_string());
        self
    }

    pub fn url(&self) -> &str {
        &self.base
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::blocking::RequestBuilder {
        let r = self.http.request(method, format!("{}{path}", self.base));
        match &self.credential {
            Some(c) => r.bearer_auth(c),
            None => r,
        }
    }

    pub fn get<R: DeserializeOwned>(&self, path: &str, query: &[(&str, String)]) -> Result<R> {
        let res = self.send(self.request(reqwest::Method::GET, path).query(query))?;
        read_json(res)
    }

    pub fn post<T: Serialize, R: DeserializeOwned>(&self, path: &str, body: &T) -> Result<R> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| SyncError::Invalid(format!("a request to the team service: {e}")))?;
        let res = self.send(
            self.request(reqwest::Method::POST, path)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(bytes),
        )?;
        read_json(res)
    }

    /// The bytes at `path`, or None when the service has nothing there (404).
    pub fn get_bytes(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let res = self.send(self.request(reqwest::Method::GET, path))?;
        if res.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        let res = refused(res)?;
        Ok(Some(
            res.bytes().map_err(|e| offline(&self.base, e))?.to_vec(),
        ))
    }

    fn send(&self, r: reqwest::blocking::RequestBuilder) -> Result<reqwest::blocking::Response> {
        r.send().map_err(|e| {
            let chain = error_chain(&e);
            if chain.contains(NOT_PINNED) {
                SyncError::Tls(format!(
                    "{}: {NOT_PINNED}; nothing was sent to it",
                    self.base
                ))
            } else {
                offline(&self.base, chain)
            }
        })
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

fn offline(url: &str, e: impl std::fmt::Display) -> SyncError {
    SyncError::Offline(format!("the team service at {url}: {e}"))
}

/// A refusal as an error that says what the service said.
fn refused(res: reqwest::blocking::Response) -> Result<reqwest::blocking::Response> {
    let status = res.status();
    if status.is_success() {
        return Ok(res);
    }
    let text = res.text().unwrap_or_default();
    let why = serde_json::from_str::<Refusal>(&text)
        .map(|r| r.error)
        .unwrap_or(text);
    Err(SyncError::Service {
        status: status.as_u16(),
        message: why,
    })
}

fn read_json<R: DeserializeOwned>(res: reqwest::blocking::Response) -> Result<R> {
    let res = refused(res)?;
    let bytes = res
        .bytes()
        .map_err(|e| SyncError::Offline(format!("the team service's answer: {e}")))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| SyncError::Invalid(format!("the team service's answer: {e}")))
}
