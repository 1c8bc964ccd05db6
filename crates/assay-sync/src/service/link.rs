//! The join link a team's lead hands a new member: the service's address, a one-time invitation
//! and the SHA-256 of the service's certificate, e.g.
//! `assay-join:https://team.example:7443?invitation=ID.SECRET&pin=HEX`.

use crate::{Result, SyncError};

#[derive(Debug, Clone, PartialEq)]
pub struct JoinLink {
    pub url: String,
    pub invitation: String,
    pub pin: String,
}

const SCHEME: &str = "assay-join:";

impl JoinLink {
    pub fn parse(link: &str) -> Result<JoinLink> {
        let bad =
            |why: &str| SyncError::Invalid(format!("not a join link ({why}): {}", redacted(link)));
        let rest = link
            .trim()
            .strip_prefix(SCHEME)
            .ok_or_else(|| bad("it starts with assay-join:"))?;
        let (url, query) = rest.split_once('?').ok_or_else(|| bad("no invitation"))?;
        if !url.starts_with("https://") || url.len() <= "https://".len() {
            return Err(bad("the service is reached over https://"));
        }
        let mut invitation = None;
        let mut pin = None;
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some(("invitation", v)) => invitation = Some(v.to_string()),
                Some(("pin", v)) => pin = Some(v.to_ascii_lowercase()),
                _ => {}
            }
        }
        let pin = pin.ok_or_else(|| bad("no certificate pin"))?;
        if pin.len() != 64 || !pin.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad("the pin is a SHA-256 in hex"));
        }
        Ok(JoinLink {
            url: url.trim_end_matches('/').to_string(),
            invitation: invitation.ok_or_else(|| bad("no invitation"))?,
            pin,
        })
    }

    pub fn format(&self) -> String {
        format!(
            "{SCHEME}{}?invitation={}&pin={}",
            self.url, self.invitation, self.pin
        )
    }
}

/// A link without its invitation, for error messages.
fn redacted(link: &str) -> String {
    match link.split_once("invitation=") {
        Some((a, b)) => format!(
            "{a}invitation=…{}",
            b.find('&').map(|i| &b[i..]).unwrap_or("")
        ),
        None => link.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_round_trips_and_a_bad_one_says_why_without_its_secret() {
        let l = JoinLink {
            url: "https://127.0.0.1:7443".into(),
            invitation: "abcd.ef".into(),
            pin: "a".repeat(64),
        };
        assert_eq!(JoinLink::parse(&l.format()).unwrap(), l);
        for bad in [
            "https://x?invitation=s3cret&pin=00",
            "assay-join:http://x?invitation=s3cret&pin="
                .to_string()
                .as_str(),
            &format!(
                "assay-join:https://x?invitation=s3cret&pin={}",
                "z".repeat(64)
            ),
            "assay-join:https://x?pin=00",
        ] {
            let e = JoinLink::parse(bad).unwrap_err().to_string();
            assert!(!e.contains("s3cret"), "{e}");
        }
    }
}
