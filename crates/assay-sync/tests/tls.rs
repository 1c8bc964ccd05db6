//! TLS to the team database: the server runs with a certificate from a test authority; a
//! connection with sslmode=verify-full trusts only that authority and that host name.

use assay_sync::cluster::{Cluster, SUPERUSER_PASSWORD};
use assay_sync::{check_connection, SyncError};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};

fn authority(name: &str) -> (rcgen::Certificate, KeyPair) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    let key = KeyPair::generate().unwrap();
    (params.self_signed(&key).unwrap(), key)
}

#[test]
fn verify_full_trusts_only_the_given_authority_and_host() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let (ca, ca_key) = authority("Assay test CA");
    let server_key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["127.0.0.1".to_string()])
        .unwrap()
        .signed_by(&server_key, &ca, &ca_key)
        .unwrap();
    cluster
        .enable_tls(&server.pem(), &server_key.serialize_pem())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, ca.pem()).unwrap();
    let (other, _) = authority("Someone else");
    let other_file = dir.path().join("other.pem");
    std::fs::write(&other_file, other.pem()).unwrap();

    let url =
        |host: &str, q: &str| format!("postgres://postgres@{host}:{}/postgres{q}", cluster.port);
    let pw = Some(SUPERUSER_PASSWORD);
    // Encrypted, with the server's authority and host.
    let q = format!("?sslmode=verify-full&sslrootcert={}", ca_file.display());
    assert!(check_connection(&url("127.0.0.1", &q), pw).unwrap());
    // Not trusted: another authority, or a host name the certificate does not name.
    let q_other = format!("?sslmode=verify-full&sslrootcert={}", other_file.display());
    let e = check_connection(&url("127.0.0.1", &q_other), pw).unwrap_err();
    assert!(matches!(e, SyncError::Tls(_)), "{e}");
    let e = check_connection(&url("localhost", &q), pw).unwrap_err();
    assert!(matches!(e, SyncError::Tls(_)), "{e}");
    // TLS without an authority to check against is refused before connecting.
    let e = check_connection(&url("127.0.0.1", "?sslmode=verify-full"), pw).unwrap_err();
    assert!(e.to_string().contains("sslrootcert"), "{e}");
    // Without sslmode the session is plain.
    assert!(!check_connection(&url("127.0.0.1", ""), pw).unwrap());
    cluster.stop();
}
