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
}

/// A refusal, as the service sends it.
#[derive(Debug, Serialize, Deserialize)]
pub struct Refusal {
    pub error: String,
}
