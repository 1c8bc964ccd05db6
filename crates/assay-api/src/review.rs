//! Review in the app: decisions, the queue, sign-off, rounds, blind judgements, comments,
//! agreement and the people of the project.

use crate::error::{ApiError, ApiResult};
use crate::types::{ItemDetail, SessionUser};
use crate::Session;
use assay_core::store::{AgreementField, BlindJudgement, Filter, NewRound, ReviewDecision};
use assay_core::Role;

impl Session {
    /// The person working (the project's owner or an auditor) gives someone a role.
    pub fn set_role(&mut self, name: String, role: Role) -> ApiResult<SessionUser> {
        let by = self
            .user
            .as_ref()
            .ok_or_else(ApiError::no_user)?
            .name
            .clone();
        let p = self.project()?;
        let u = p.set_role(&by, &name, role)?;
        Ok(SessionUser {
            name: u.name,
            role: u.role,
        })
    }

    /// Why the person working may not give people roles, if they may not.
    pub fn why_not_assign_roles(&self) -> ApiResult<Option<String>> {
        let by = self
            .user
            .as_ref()
            .ok_or_else(ApiError::no_user)?
            .name
            .clone();
        Ok(self.project()?.why_not_assign_roles(&by)?)
    }

    /// The current user approves someone else's revision or asks for changes.
    pub fn review(
        &mut self,
        id: i64,
        decision: ReviewDecision,
        comment: Option<String>,
    ) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?
            .review(id, decision, comment.as_deref(), &author)?;
        self.item_detail(id)
    }

    /// Items waiting for the current user's review (never their own revisions).
    pub fn review_queue(&self) -> ApiResult<Vec<i64>> {
        let author = self.author()?;
        Ok(self.project()?.review_queue(author.user_id)?)
    }

    /// An auditor signs the item off (locking it) or reopens it; core refuses anyone else.
    pub fn sign_off(
        &mut self,
        id: i64,
        signed: bool,
        note: Option<String>,
    ) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?
            .sign_off(id, signed, note.as_deref(), &author)?;
        self.item_detail(id)
    }

    pub fn agreement(
        &self,
        field: AgreementField,
        round: Option<i64>,
    ) -> ApiResult<assay_core::store::Agreement> {
        Ok(self.project()?.agreement(field, None, round)?)
    }

    /// CRAG-MM's annotation check: `experts`' labels against the others' majority (at least
    /// `crowd` of them per item), with the binary kappa on "ambiguous" for referring types.
    pub fn majority_check(
        &self,
        field: AgreementField,
        round: Option<i64>,
        experts: Vec<String>,
        crowd: u32,
    ) -> ApiResult<assay_core::store::MajorityCheck> {
        let spec = assay_core::store::MajorityCheckSpec {
            field,
            experts,
            crowd: crowd as usize,
            binary: (field == AgreementField::RefType).then(|| "ambiguous".to_string()),
            dataset_id: None,
            round_id: round,
        };
        Ok(self.project()?.majority_check(&spec)?)
    }

    /// Everything waiting for the current user, across rounds.
    pub fn my_work(&self) -> ApiResult<crate::types::MyWork> {
        let author = self.author()?;
        let p = self.project()?;
        let mut rounds = Vec::new();
        for r in p.rounds()? {
            let entries = p.round_queue(r.id, author.user_id)?;
            if entries.is_empty() {
                continue;
            }
            rounds.push(crate::types::RoundQueue {
                id: r.id,
                name: r.name,
                purpose: r.purpose,
                blind: r.blind,
                done: entries.iter().filter(|e| e.done).count(),
                entries,
            });
        }
        Ok(crate::types::MyWork {
            review: p.review_entries(author.user_id)?,
            sent_back: p.sent_back(author.user_id)?,
            mentions: p.open_mentions(author.user_id)?,
            adjudicate: if author.role == assay_core::Role::Auditor {
                p.adjudication_queue()?
            } else {
                Vec::new()
            },
            rounds,
        })
    }

    /// The item's blind rounds as the current user may see them (their own judgement; everyone's
    /// once all are in).
    pub fn blind_items(&self, id: i64) -> ApiResult<Vec<assay_core::store::BlindItem>> {
        let author = self.author()?;
        Ok(self.project()?.blind_items(id, &author)?)
    }

    /// Records the current user's judgement of an item in a blind round.
    pub fn record_blind(
        &mut self,
        round: i64,
        id: i64,
        judgement: BlindJudgement,
    ) -> ApiResult<Vec<assay_core::store::BlindItem>> {
        let author = self.author()?;
        self.project_mut()?
            .record_blind(round, id, &judgement, &author)?;
        self.blind_items(id)
    }

    /// An auditor writes the item's revision from `take`'s judgement.
    pub fn adjudicate_blind(&mut self, round: i64, id: i64, take: String) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?
            .adjudicate_blind(round, id, &take, &author)?;
        self.item_detail(id)
    }

    pub fn rounds(&self) -> ApiResult<Vec<assay_core::store::RoundSummary>> {
        Ok(self.project()?.rounds()?)
    }

    /// Makes a round over the items the filter matches (core refuses anyone but an auditor).
    pub fn create_round(
        &mut self,
        round: NewRound,
        filter: Filter,
    ) -> ApiResult<Vec<assay_core::store::RoundSummary>> {
        let author = self.author()?;
        let items = self.project()?.query_ids(&filter)?;
        self.project_mut()?.create_round(&round, &items, &author)?;
        self.rounds()
    }

    pub fn comments(&self, id: i64) -> ApiResult<Vec<assay_core::store::Comment>> {
        Ok(self.project()?.comments(id)?)
    }

    pub fn add_comment(
        &mut self,
        id: i64,
        body: String,
    ) -> ApiResult<Vec<assay_core::store::Comment>> {
        let author = self.author()?;
        self.project_mut()?.add_comment(id, &body, &author)?;
        self.comments(id)
    }

    pub fn users(&self) -> ApiResult<Vec<assay_core::store::User>> {
        Ok(self.project()?.users()?)
    }

    /// The roles `name` can start working in on the open project, each with the reason when
    /// not; with no project open yet, every role (the project decides when it opens).
    pub fn role_choices(&self, name: String) -> ApiResult<Vec<assay_core::store::RoleChoice>> {
        match &self.project {
            Some(p) if !name.trim().is_empty() => Ok(p.role_choices(&name)?),
            _ => Ok(Role::ALL
                .iter()
                .map(|&role| assay_core::store::RoleChoice {
                    role,
                    why_not: None,
                })
                .collect()),
        }
    }

    pub fn people(&self) -> ApiResult<Vec<assay_core::store::PersonStats>> {
        Ok(self.project()?.people_stats()?)
    }
}
