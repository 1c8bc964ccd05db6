//! Secrets the service hands out (a member's credential, an invitation's code): `ID.SECRET`,
//! where the ID finds the row and only an argon2 hash of the secret is stored.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use ring::rand::{SecureRandom, SystemRandom};

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    SystemRandom::new()
        .fill(&mut buf)
        .expect("the system's random source");
    hex::encode(buf)
}

/// A new secret: (the `ID.SECRET` to give out once, the ID, the hash to store).
pub fn issue() -> (String, String, String) {
    let id = random_hex(8);
    let secret = random_hex(24);
    let salt = SaltString::encode_b64(&hex::decode(random_hex(16)).unwrap_or_default())
        .expect("a 16-byte salt");
    let hash = Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .expect("argon2 with default parameters")
        .to_string();
    (format!("{id}.{secret}"), id, hash)
}

/// The ID and secret of `ID.SECRET`, if it has that shape.
pub fn split(given: &str) -> Option<(&str, &str)> {
    let (id, secret) = given.trim().split_once('.')?;
    let hexlike = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    (hexlike(id, 16) && hexlike(secret, 48)).then_some((id, secret))
}

/// Whether `secret` is the one `hash` was made from.
pub fn verify(secret: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|h| {
            Argon2::default()
                .verify_password(secret.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_verifies_against_its_hash_and_nothing_else() {
        let (given, id, hash) = issue();
        let (gid, secret) = split(&given).unwrap();
        assert_eq!(gid, id);
        assert!(verify(secret, &hash));
        assert!(!hash.contains(secret), "only the hash is stored");
        let (other, _, _) = issue();
        assert!(!verify(split(&other).unwrap().1, &hash));
        for bad in [
            "",
            "abc",
            "x.y",
            &format!("{id}.{}", &secret[1..]),
            &given.replace('.', ""),
        ] {
            assert!(
                split(bad).is_none() || !verify(split(bad).unwrap().1, &hash),
                "{bad}"
            );
        }
    }
}
