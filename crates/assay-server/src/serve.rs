//! Running the service: its replica and certificate ready first, then HTTPS on one address
//! until it is asked to stop, when it stops taking connections and lets the requests in flight
//! finish (graceful shutdown).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio_rustls::TlsAcceptor;

use crate::api::{router, AppState};
use crate::checks::Replica;
use crate::error::{Result, ServiceError};
use crate::limits::Limits;
use crate::pool::Pool;

pub struct Config {
    /// The owner's URL of the team database: the only database login, held here alone.
    pub admin_url: String,
    pub listen: SocketAddr,
    /// Where the service keeps its replica and (unless given) its certificate.
    pub data_dir: PathBuf,
    /// A certificate and key (PEM) to use instead of the service's own.
    pub cert: Option<(PathBuf, PathBuf)>,
    /// The address members reach the service at (for invitations); the listening address if
    /// not given.
    pub public_url: Option<String>,
    pub limits: Limits,
}

/// A service that is running.
pub struct Running {
    pub addr: SocketAddr,
    /// The address members reach it at.
    pub url: String,
    /// SHA-256 of its certificate, which members pin at join.
    pub pin: String,
    stop: Option<tokio::sync::watch::Sender<bool>>,
    thread: Option<std::thread::JoinHandle<()>>,
    state: Arc<AppState>,
}

impl Running {
    /// Stops taking connections, lets requests in flight finish (up to 30 s), and returns.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(true);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Waits until the service stops (it does not stop by itself).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// How many pushes wait for the service's replica (the next group).
    pub fn pushes_waiting(&self) -> usize {
        self.state.pushes.waiting()
    }

    /// How many pushes were written in a transaction shared with others (a group).
    pub fn pushes_grouped(&self) -> usize {
        self.state.pushes.grouped()
    }

    /// A handle that asks the service to stop (for a signal handler).
    pub fn stopper(&self) -> Option<tokio::sync::watch::Sender<bool>> {
        self.stop.clone()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Starts the service and returns once it listens.
pub fn start(config: Config) -> Result<Running> {
    std::fs::create_dir_all(&config.data_dir)
        .map_err(|e| ServiceError::Internal(format!("{}: {e}", config.data_dir.display())))?;
    let listener = std::net::TcpListener::bind(config.listen)
        .map_err(|e| ServiceError::Internal(format!("listening on {}: {e}", config.listen)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| ServiceError::Internal(e.to_string()))?;
    let url = config
        .public_url
        .clone()
        .unwrap_or_else(|| format!("https://{addr}"));
    let host = url
        .trim_start_matches("https://")
        .split(['/', ':'])
        .next()
        .unwrap_or("localhost")
        .to_string();
    let names = vec![host, "localhost".into(), addr.ip().to_string()];
    let cert = crate::cert::load_or_make(
        &config.data_dir,
        config
            .cert
            .as_ref()
            .map(|(c, k)| (c.as_path(), k.as_path())),
        &names,
    )?;
    let pin = cert.pin.clone();
    // The owner's login: members never see it. The schema must be this build's.
    let mut db = assay_sync::connect_admin(&config.admin_url)?;
    assay_sync::require_current_schema(&mut db)?;
    // A login that is also a member's role would make every request that member to the team's
    // row-level security (`assay_session_member`): refused before anything is served.
    let clash: Option<String> = db
        .query_opt(
            "SELECT name FROM members WHERE db_role = session_user::text",
            &[],
        )?
        .map(|r| r.get(0));
    if let Some(name) = clash {
        return Err(ServiceError::Internal(format!(
            "the service's database login is also the database role of member {name}: \
             serve with a login no member has (the owner's own)"
        )));
    }
    // An upgrade stopped during its size fill left the schema current and some sizes empty:
    // finished here, and said, rather than left to pulls that must measure those rows.
    let filled = assay_sync::finish_size_fill(&mut db)?;
    if filled > 0 {
        eprintln!(
            "{}",
            serde_json::json!({"time": assay_core::store::now(), "event": "sizes filled",
                               "revisions": filled,
                               "why": "an upgrade was stopped before it filled every revision's size"})
        );
    }
    for (key, value) in [("service_url", url.as_str()), ("service_pin", pin.as_str())] {
        db.execute(
            "INSERT INTO assay_meta (key, value) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[&key, &value],
        )?;
    }
    drop(db);
    let replica = Replica::open(&config.data_dir, &config.admin_url)?;
    let state = Arc::new(AppState::new(
        Pool::new(
            &config.admin_url,
            config.limits.connections,
            config.limits.connection_wait,
            config.limits.statement_timeout,
        ),
        replica,
        config.limits.clone(),
        &url,
        &pin,
    ));
    let tls = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| ServiceError::Internal(format!("TLS: {e}")))?
    .with_no_client_auth()
    .with_single_cert(cert.chain, cert.key)
    .map_err(|e| ServiceError::Internal(format!("TLS: {e}")))?;
    let acceptor = TlsAcceptor::from(Arc::new(tls));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    listener
        .set_nonblocking(true)
        .map_err(|e| ServiceError::Internal(e.to_string()))?;
    let app = router(state.clone());
    let thread = std::thread::Builder::new()
        .name("assay-serve".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("a runtime for the service");
            rt.block_on(run(listener, acceptor, app, stopped));
        })
        .map_err(|e| ServiceError::Internal(e.to_string()))?;
    eprintln!(
        "{}",
        serde_json::json!({"time": assay_core::store::now(), "event": "listening",
                           "url": url, "pin": pin})
    );
    Ok(Running {
        addr,
        url,
        pin,
        stop: Some(stop),
        thread: Some(thread),
        state,
    })
}

async fn run(
    listener: std::net::TcpListener,
    acceptor: TlsAcceptor,
    app: axum::Router,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
    let mut conns = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stopped.changed() => break,
        };
        let Ok((stream, _)) = accepted else { continue };
        let acceptor = acceptor.clone();
        let app = app.clone();
        let mut stop = stopped.clone();
        conns.spawn(async move {
            // A client that never finishes its handshake is dropped.
            let Ok(Ok(tls)) =
                tokio::time::timeout(Duration::from_secs(10), acceptor.accept(stream)).await
            else {
                return;
            };
            let service = TowerToHyperService::new(app);
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(30))
                .serve_connection(TokioIo::new(tls), service);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stop.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
        // Finished connections are reaped as they go.
        while conns.try_join_next().is_some() {}
    }
    let _ = tokio::time::timeout(Duration::from_secs(30), async {
        while conns.join_next().await.is_some() {}
    })
    .await;
    eprintln!(
        "{}",
        serde_json::json!({"time": assay_core::store::now(), "event": "stopped"})
    );
}
