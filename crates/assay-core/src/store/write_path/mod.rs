//! The one write path. Every row that changes an item is written by a function of this
//! module, which checks every rule before writing; the statements that insert those rows are
//! private to it, so no caller (the CLI, the app, an import, a pull from the team, a team
//! service) can write around a rule.
//!
//! | row | written by |
//! |---|---|
//! | a revision: an edit, a bulk action, an accepted suggestion, a box set, an adjudication, a resolved conflict | [`revision::edit`] |
//! | a revision written as given: a restore, a review's record, a refined set's import, an undo | [`revision::append`] |
//! | a revision pulled from the team | [`revision::pulled`] |
//! | a review decision, made here or pulled | [`decisions::review`], [`decisions::pulled_review`] |
//! | a sign-off or a reopening, made here or pulled | [`decisions::sign_off`], [`decisions::sign_off_dataset`], [`decisions::pulled_sign_off`] |
//! | a stage decision, a phase-1 flag, an auditor's override | [`filtering::decision`], [`filtering::phase1_flag`], [`filtering::phase1_override`] |
//! | a blind judgement, made here or pulled | [`blind::record`], [`blind::pulled`] |
//!
//! The rules, each written once in [`rules`]: the sign-off lock, the blind hold, nobody
//! reviews their own revision or approves work they wrote (content or operation, never a tag),
//! only an auditor signs off, reopens, keeps a flagged item; the role recorded is the one the
//! store holds; content is stored in its canonical form, within its size, without newly
//! breaking the seeds' content rules.

pub(crate) mod blind;
pub(crate) mod decisions;
pub(crate) mod filtering;
pub(crate) mod revision;
pub(crate) mod rules;
