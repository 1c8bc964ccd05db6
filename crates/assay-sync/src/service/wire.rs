//! What the team service and a replica send each other, besides the rows themselves
//! (`push::Pending`, `push::Pushed`, `pull::PulledRow`).

use serde::{Deserialize, Serialize};

use crate::pull::{Positions, PulledRow};

#[derive(Debug, Serialize, Deserialize)]
pub struct Health {
    pub status: String,
    pub schema: usize,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct JoinRequest {
    pub invitation: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Joined {
    pub member: String,
    pub role: String,
    pub credential: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Me {
    pub name: String,
    pub role: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct PullRequest {
    pub positions: Positions,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct PullPage {
    /// The team's people and roles: the only source of roles in a team.
    pub members: Vec<(String, String)>,
    /// None when there is nothing after the positions asked from.
    pub rows: Option<Vec<PulledRow>>,
    /// `rows` holds everything after the positions asked from: the replica need not ask
    /// again. A service that does not say so is asked until it answers None.
    #[serde(default)]
    pub last: bool,
}

/// A refusal, as the service sends it.
#[derive(Debug, Serialize, Deserialize)]
pub struct Refusal {
    pub error: String,
}

/// A member as listed for the team's lead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberInfo {
    pub name: String,
    pub role: String,
    /// Manages the team's members (made so by the owner).
    pub lead: bool,
    /// Credentials not revoked.
    pub active: i64,
    /// Invitations not used and not expired.
    pub invited: i64,
}

/// A lead's invitation of a new member (never a lead: only the owner makes leads).
#[derive(Debug, Serialize, Deserialize)]
pub struct InviteRequest {
    pub name: String,
    pub role: String,
    /// Days the invitation stays valid (7 if not given).
    pub days: Option<u64>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Invited {
    pub link: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RoleRequest {
    pub name: String,
    pub role: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RevokeRequest {
    pub name: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Revoked {
    pub credentials: u64,
}
