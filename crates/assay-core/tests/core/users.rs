//! Roles have one source: the owner (the project's first person) or an auditor assigns them;
//! signing in never raises one's own; in a team, the team's members table decides.

use assay_core::Role;

use crate::common::*;

#[test]
fn nobody_raises_their_own_role() {
    let dir = tempfile::tempdir().unwrap();
    let p = new_project(dir.path());
    let lead = p.sign_in("lead", Role::Auditor).unwrap();
    assert_eq!(
        lead.role,
        Role::Auditor,
        "the first person owns the project"
    );
    assert_eq!(p.owner().unwrap().as_deref(), Some("lead"));
    // A new person may start as an annotator or researcher, never as an auditor.
    assert_eq!(
        p.sign_in("aiko", Role::Annotator).unwrap().role,
        Role::Annotator
    );
    assert_eq!(
        p.sign_in("rin", Role::Researcher).unwrap().role,
        Role::Researcher
    );
    assert_eq!(
        p.sign_in("eve", Role::Auditor).unwrap_err().code(),
        "forbidden"
    );
    assert!(p.user_by_name("eve").unwrap().is_none());
    // Known people keep their stored role whatever they ask for, through every entry point.
    assert_eq!(
        p.sign_in("aiko", Role::Auditor).unwrap().role,
        Role::Annotator
    );
    assert_eq!(
        p.ensure_user("aiko", Role::Auditor).unwrap().role,
        Role::Annotator
    );
    // Only the owner or an auditor assigns roles.
    assert_eq!(
        p.set_role("aiko", "aiko", Role::Auditor)
            .unwrap_err()
            .code(),
        "forbidden"
    );
    assert_eq!(
        p.set_role("rin", "aiko", Role::Auditor).unwrap_err().code(),
        "forbidden"
    );
    assert_eq!(
        p.set_role("lead", "aiko", Role::Auditor).unwrap().role,
        Role::Auditor
    );
    assert_eq!(
        p.set_role("aiko", "rin", Role::Annotator).unwrap().role,
        Role::Annotator
    );
    assert_eq!(
        p.user_by_name("rin").unwrap().unwrap().role,
        Role::Annotator
    );
}

#[test]
fn in_a_team_the_members_table_is_the_only_source_of_roles() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    p.sign_in("lead", Role::Auditor).unwrap();
    p.sync_set("team", "postgres://lead@db/team").unwrap();
    p.set_team_roles(&[
        ("seo".into(), Role::Auditor),
        ("lead".into(), Role::Annotator),
    ])
    .unwrap();
    assert_eq!(p.user_by_name("seo").unwrap().unwrap().role, Role::Auditor);
    assert_eq!(
        p.user_by_name("lead").unwrap().unwrap().role,
        Role::Annotator
    );
    // A later pull's rows naming seo do not change her role, and nobody sets one here.
    assert_eq!(
        p.ensure_user("seo", Role::Annotator).unwrap().role,
        Role::Auditor
    );
    assert_eq!(
        p.set_role("seo", "lead", Role::Auditor).unwrap_err().code(),
        "forbidden"
    );
}

/// The start screen's choices come from the rule `sign_in` applies: each role offered is one
/// `sign_in` accepts, each one refused carries the reason `sign_in` gives.
#[test]
fn the_roles_offered_are_the_roles_sign_in_accepts() {
    let team = || {
        let dir = tempfile::tempdir().unwrap();
        let p = new_project(dir.path());
        p.sign_in("lead", Role::Auditor).unwrap();
        p.sign_in("aiko", Role::Annotator).unwrap();
        (dir, p)
    };
    // Nobody yet: the first person is the owner and may start as anything.
    let dir = tempfile::tempdir().unwrap();
    let empty = new_project(dir.path());
    assert!(empty
        .role_choices("lead")
        .unwrap()
        .iter()
        .all(|c| c.why_not.is_none()));
    for name in ["eve", "aiko", "lead"] {
        for c in team().1.role_choices(name).unwrap() {
            // Each choice tried on a project of its own, as signing in changes it.
            let (_dir, q) = team();
            let known = q.user_by_name(name).unwrap().is_some();
            let signed = q.sign_in(name, c.role);
            match &c.why_not {
                None => assert_eq!(signed.unwrap().role, c.role, "{name} as {:?}", c.role),
                // A known person is not refused: they work in their stored role instead.
                Some(why) if known => assert_ne!(signed.unwrap().role, c.role, "{name}: {why}"),
                Some(why) => {
                    let err = signed.unwrap_err().to_string();
                    assert!(err.contains(why.as_str()), "{err} / {why}");
                }
            }
        }
    }
    let (_dir, p) = team();
    let eve = p.role_choices("eve").unwrap();
    let auditor = eve.iter().find(|c| c.role == Role::Auditor).unwrap();
    assert!(auditor.why_not.as_deref().unwrap().contains("owner"));
    let aiko = p.role_choices("aiko").unwrap();
    assert_eq!(
        aiko.iter()
            .filter(|c| c.why_not.is_none())
            .map(|c| c.role)
            .collect::<Vec<_>>(),
        [Role::Annotator]
    );
}
