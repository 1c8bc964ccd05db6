//! A private PostgreSQL cluster for tests and benchmarks, started from the system's packages
//! (Debian's `postgresql`: binaries under /usr/lib/postgresql/N/bin). The server refuses to run
//! as root, so as root the cluster belongs to the `postgres` user. Logins over TCP need a
//! password (scram-sha-256), as a team server's would; the superuser's is `assay-test`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const SUPERUSER_PASSWORD: &str = "assay-test";

pub struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
}

fn bin_dir() -> Result<PathBuf, String> {
    let base = Path::new("/usr/lib/postgresql");
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(base)
        .map_err(|_| "PostgreSQL is not installed (apt-get install postgresql)".to_string())?
        .flatten()
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, p)| p.join("initdb").exists())
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|v| v.1)
        .ok_or_else(|| "no initdb under /usr/lib/postgresql".to_string())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn as_owner(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(55432)
}

fn check(out: std::io::Result<std::process::Output>, what: &str) -> Result<(), String> {
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "{what} failed: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => Err(format!("{what}: {e}")),
    }
}

impl Cluster {
    pub fn start() -> Result<Self, String> {
        let bin = bin_dir()?;
        let dir = tempfile::Builder::new()
            .prefix("assay-pg-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let path = dir.path();
        let pwfile = path.join("pw");
        std::fs::write(&pwfile, SUPERUSER_PASSWORD).map_err(|e| e.to_string())?;
        if is_root() {
            check(
                Command::new("chown")
                    .args(["-R", "postgres:postgres"])
                    .arg(path)
                    .output(),
                "chown",
            )?;
        }
        check(
            as_owner(&bin.join("initdb"))
                .arg("-D")
                .arg(path.join("data"))
                .args([
                    "-U",
                    "postgres",
                    "--auth-local=trust",
                    "--auth-host=scram-sha-256",
                ])
                .arg(format!("--pwfile={}", pwfile.display()))
                .args(["-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
                .output(),
            "initdb",
        )?;
        let port = free_port();
        check(
            as_owner(&bin.join("pg_ctl"))
                .arg("-D")
                .arg(path.join("data"))
                .arg("-o")
                .arg(format!(
                    "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100",
                    path.display()
                ))
                .arg("-l")
                .arg(path.join("log"))
                .args(["-w", "start"])
                .output(),
            "pg_ctl start",
        )?;
        Ok(Self { dir, bin, port })
    }

    /// The superuser's URL (creates databases and roles).
    pub fn admin_url(&self, db: &str) -> String {
        format!(
            "postgres://postgres:{SUPERUSER_PASSWORD}@127.0.0.1:{}/{db}",
            self.port
        )
    }

    /// Turns TLS on with this certificate and key (PEM), as a server with a real certificate
    /// would run.
    pub fn enable_tls(&self, cert_pem: &str, key_pem: &str) -> Result<(), String> {
        let cert = self.dir.path().join("server.crt");
        let key = self.dir.path().join("server.key");
        std::fs::write(&cert, cert_pem).map_err(|e| e.to_string())?;
        std::fs::write(&key, key_pem).map_err(|e| e.to_string())?;
        if is_root() {
            check(
                Command::new("chown")
                    .args(["postgres:postgres"])
                    .arg(&cert)
                    .arg(&key)
                    .output(),
                "chown",
            )?;
        }
        check(Command::new("chmod").arg("600").arg(&key).output(), "chmod")?;
        let mut db = postgres::Client::connect(&self.admin_url("postgres"), postgres::NoTls)
            .map_err(|e| e.to_string())?;
        // ALTER SYSTEM runs outside a transaction: one statement at a time.
        for stmt in [
            format!("ALTER SYSTEM SET ssl_cert_file = '{}'", cert.display()),
            format!("ALTER SYSTEM SET ssl_key_file = '{}'", key.display()),
            "ALTER SYSTEM SET ssl = 'on'".to_string(),
            "SELECT pg_reload_conf()".to_string(),
        ] {
            db.batch_execute(&stmt).map_err(|e| {
                e.as_db_error()
                    .map(|d| d.message().to_string())
                    .unwrap_or_else(|| e.to_string())
            })?;
        }
        // The reload is a signal: wait until new sessions see it.
        for _ in 0..100 {
            let on = postgres::Client::connect(&self.admin_url("postgres"), postgres::NoTls)
                .and_then(|mut c| c.query_one("SHOW ssl", &[]))
                .map(|r| r.get::<_, String>(0) == "on")
                .unwrap_or(false);
            if on {
                return Ok(());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Err("the server did not turn TLS on".into())
    }

    pub fn stop(&self) {
        let _ = as_owner(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "fast", "-w", "stop"])
            .output();
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}
