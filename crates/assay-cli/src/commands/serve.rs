//! `assay serve`: the team service in front of a team database, until Ctrl-C or SIGTERM, when
//! it lets the requests in flight finish and stops.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

#[derive(Args)]
pub struct ServeArgs {
    /// The team database's URL with the owner's login (the only login the team needs).
    #[arg(long, env = "ASSAY_TEAM_DB")]
    pub db: String,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:7443")]
    pub listen: SocketAddr,
    /// Folder for the service's replica and its certificate.
    #[arg(long, default_value = "assay-service")]
    pub data: PathBuf,
    /// A certificate (PEM) to serve instead of the service's own.
    #[arg(long, requires = "key")]
    pub cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, requires = "cert")]
    pub key: Option<PathBuf>,
    /// The address members reach the service at, if not the one it listens on.
    #[arg(long)]
    pub public_url: Option<String>,
    /// Requests one member may make per minute.
    #[arg(long, default_value_t = 600)]
    pub rate: u32,
    /// MiB of pushes and runs one member may send per day (UTC).
    #[arg(long, default_value_t = 4096)]
    pub quota_mib: u64,
    /// Connections to the team database the service holds at most (keep it under the
    /// database server's `max_connections`).
    #[arg(long, default_value_t = 64)]
    pub connections: usize,
    /// Seconds one statement of a request may run before the service ends it.
    #[arg(long, default_value_t = 30)]
    pub statement_timeout_secs: u64,
}

pub fn serve(a: ServeArgs) -> anyhow::Result<()> {
    let running = assay_server::start(assay_server::Config {
        admin_url: a.db,
        listen: a.listen,
        data_dir: a.data,
        cert: a.cert.zip(a.key),
        public_url: a.public_url,
        limits: assay_server::limits::Limits {
            requests_per_minute: a.rate,
            bytes_per_day: a.quota_mib << 20,
            connections: a.connections,
            statement_timeout: std::time::Duration::from_secs(a.statement_timeout_secs.max(1)),
            ..Default::default()
        },
    })?;
    println!(
        "serving the team at {} (certificate {})",
        running.url, running.pin
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        #[cfg(unix)]
        {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        tokio::signal::ctrl_c().await?;
        anyhow::Ok(())
    })?;
    running.stop();
    Ok(())
}
