//! TypeScript bindings for the UI: every payload type (from ts-rs) and a typed wrapper for every
//! command. Generated into `ui/src/lib/api/bindings.ts`; a test fails when that file is stale.

use ts_rs::{Config, TS};

use crate::error::ApiError;
use crate::evaluation::{
    Dashboard, DashboardRow, EvalEstimate, EvalForm, EvalStatus, ModelCheck, ModelForm, ModelPair,
    PanelCriterion, PanelDisagreement, PanelPair, PanelView, PredictionsForm, PredictionsReport,
    Share, StageCell, StageView, StageViewCorrelation, StageViewRow,
};
use crate::types::{
    AppInfo, CriterionOverruled, ImportRequest, ItemDetail, ItemResults, MyWork, ProjectInfo,
    RescoreResult, RoundQueue, RunListRow, SessionUser, TriageEntry,
};
use assay_core::import::{ImportReport, Progress};
use assay_core::store::{
    Agreement, AgreementField, AssigneeProgress, Bin, BlindEntry, BlindItem, BlindJudgement,
    BoxHistograms, Comment, CriterionOverrule, Dataset, Edit, Facets, Filter, Filtering,
    FunnelStep, ItemRow, ItemRunResult, ItemView, JudgeRatingReport, JudgeReviewEntry, NewRound,
    OpenMention, Page, PairAgreement, PersonStats, Phase1Flag, QueryResult, QueueEntry, Range,
    RaterAgreement, ReviewDecision, RevisionInfo, RoundPurpose, RoundSummary, RunRow, Stage,
    StageDecision, User,
};
use assay_core::{
    AnswerFormat, BBox, ChoiceOption, CriterionFlag, CriterionIssue, DistractorKind, IssueTag,
    ItemContent, ItemImage, ItemStatus, LabeledBox, Phase1Dimension, Problem, RefType,
    RefinementOp, Role,
};

/// A command as the UI calls it: Rust name, arguments (JS name, TS type) and result type.
pub struct CommandSig {
    pub name: &'static str,
    pub args: &'static [(&'static str, &'static str)],
    pub returns: &'static str,
}

/// Every command the shell registers; the shell's handler list must match (tested there).
pub const COMMANDS: &[CommandSig] = &[
    CommandSig {
        name: "app_info",
        args: &[],
        returns: "AppInfo",
    },
    CommandSig {
        name: "open_project",
        args: &[("path", "string")],
        returns: "ProjectInfo",
    },
    CommandSig {
        name: "create_project",
        args: &[("path", "string")],
        returns: "ProjectInfo",
    },
    CommandSig {
        name: "set_user",
        args: &[("name", "string"), ("role", "Role")],
        returns: "SessionUser",
    },
    CommandSig {
        name: "project_info",
        args: &[],
        returns: "ProjectInfo",
    },
    CommandSig {
        name: "query_items",
        args: &[("filter", "Filter"), ("page", "Page")],
        returns: "QueryResult",
    },
    CommandSig {
        name: "facets",
        args: &[("filter", "Filter")],
        returns: "Facets",
    },
    CommandSig {
        name: "item_ids",
        args: &[("filter", "Filter")],
        returns: "number[]",
    },
    CommandSig {
        name: "item_detail",
        args: &[("id", "number")],
        returns: "ItemDetail",
    },
    CommandSig {
        name: "save_item",
        args: &[("id", "number"), ("edit", "Edit")],
        returns: "ItemDetail",
    },
    CommandSig {
        name: "restore_revision",
        args: &[("id", "number"), ("rev", "number")],
        returns: "ItemDetail",
    },
    CommandSig {
        name: "saved_filter",
        args: &[],
        returns: "Filter",
    },
    CommandSig {
        name: "save_filter",
        args: &[("filter", "Filter")],
        returns: "null",
    },
    CommandSig {
        name: "import_dataset",
        args: &[
            ("request", "ImportRequest"),
            ("onProgress", "Channel<Progress>"),
        ],
        returns: "ImportReport",
    },
    CommandSig {
        name: "cancel_import",
        args: &[],
        returns: "null",
    },
    CommandSig {
        name: "stages",
        args: &[],
        returns: "Array<Stage>",
    },
    CommandSig {
        name: "set_stages",
        args: &[("stages", "Array<[string, string]>")],
        returns: "Array<Stage>",
    },
    CommandSig {
        name: "filtering",
        args: &[("id", "number")],
        returns: "Filtering",
    },
    CommandSig {
        name: "decide_stage",
        args: &[
            ("id", "number"),
            ("stageId", "number"),
            ("keep", "boolean"),
            ("reason", "string | null"),
        ],
        returns: "Filtering",
    },
    CommandSig {
        name: "flag_phase1",
        args: &[
            ("id", "number"),
            ("dimension", "Phase1Dimension"),
            ("flagged", "boolean"),
            ("note", "string | null"),
        ],
        returns: "Filtering",
    },
    CommandSig {
        name: "override_phase1",
        args: &[
            ("id", "number"),
            ("keep", "boolean"),
            ("note", "string | null"),
        ],
        returns: "Filtering",
    },
    CommandSig {
        name: "funnel",
        args: &[("datasets", "Array<number>"), ("group", "string")],
        returns: "Array<FunnelStep>",
    },
    CommandSig {
        name: "save_chart",
        args: &[("path", "string"), ("data", "string")],
        returns: "null",
    },
    CommandSig {
        name: "item_results",
        args: &[("id", "number")],
        returns: "ItemResults",
    },
    CommandSig {
        name: "overrule_criterion",
        args: &[
            ("runId", "number"),
            ("id", "number"),
            ("criterion", "number"),
            ("rating", "number"),
        ],
        returns: "CriterionOverruled",
    },
    CommandSig {
        name: "models",
        args: &[],
        returns: "Array<ModelForm>",
    },
    CommandSig {
        name: "save_model",
        args: &[("form", "ModelForm")],
        returns: "ModelForm",
    },
    CommandSig {
        name: "check_model",
        args: &[("name", "string")],
        returns: "ModelCheck",
    },
    CommandSig {
        name: "estimate_eval",
        args: &[("form", "EvalForm")],
        returns: "EvalEstimate",
    },
    CommandSig {
        name: "start_eval",
        args: &[("form", "EvalForm")],
        returns: "null",
    },
    CommandSig {
        name: "eval_status",
        args: &[],
        returns: "EvalStatus",
    },
    CommandSig {
        name: "cancel_eval",
        args: &[],
        returns: "null",
    },
    CommandSig {
        name: "dashboard",
        args: &[("by", "string | null"), ("against", "string | null")],
        returns: "Dashboard",
    },
    CommandSig {
        name: "stage_table",
        args: &[("version", "string")],
        returns: "StageView",
    },
    CommandSig {
        name: "judge_panel",
        args: &[
            ("run", "number"),
            ("scorer", "string"),
            ("judges", "Array<string>"),
        ],
        returns: "PanelView",
    },
    CommandSig {
        name: "run_list",
        args: &[],
        returns: "Array<RunListRow>",
    },
    CommandSig {
        name: "rescore_runs",
        args: &[("run", "number | null")],
        returns: "Array<RescoreResult>",
    },
    CommandSig {
        name: "overrule_result",
        args: &[
            ("runId", "number"),
            ("id", "number"),
            ("score", "number"),
            ("note", "string | null"),
        ],
        returns: "null",
    },
    CommandSig {
        name: "triage",
        args: &[],
        returns: "Array<TriageEntry>",
    },
    CommandSig {
        name: "tag_failure",
        args: &[
            ("runId", "number"),
            ("id", "number"),
            ("tag", "string"),
            ("tagged", "boolean"),
        ],
        returns: "null",
    },
    CommandSig {
        name: "remove_model",
        args: &[("name", "string")],
        returns: "null",
    },
    CommandSig {
        name: "review",
        args: &[
            ("id", "number"),
            ("decision", "ReviewDecision"),
            ("comment", "string | null"),
        ],
        returns: "ItemDetail",
    },
    CommandSig {
        name: "review_queue",
        args: &[],
        returns: "Array<number>",
    },
    CommandSig {
        name: "sign_off",
        args: &[
            ("id", "number"),
            ("signed", "boolean"),
            ("note", "string | null"),
        ],
        returns: "ItemDetail",
    },
    CommandSig {
        name: "agreement",
        args: &[("field", "AgreementField"), ("round", "number | null")],
        returns: "Agreement",
    },
    CommandSig {
        name: "my_work",
        args: &[],
        returns: "MyWork",
    },
    CommandSig {
        name: "rounds",
        args: &[],
        returns: "Array<RoundSummary>",
    },
    CommandSig {
        name: "create_round",
        args: &[("round", "NewRound"), ("filter", "Filter")],
        returns: "Array<RoundSummary>",
    },
    CommandSig {
        name: "blind_items",
        args: &[("id", "number")],
        returns: "Array<BlindItem>",
    },
    CommandSig {
        name: "record_blind",
        args: &[
            ("round", "number"),
            ("id", "number"),
            ("judgement", "BlindJudgement"),
        ],
        returns: "Array<BlindItem>",
    },
    CommandSig {
        name: "adjudicate_blind",
        args: &[("round", "number"), ("id", "number"), ("take", "string")],
        returns: "ItemDetail",
    },
    CommandSig {
        name: "import_predictions",
        args: &[("form", "PredictionsForm")],
        returns: "PredictionsReport",
    },
    CommandSig {
        name: "judge_review",
        args: &[("run", "number"), ("size", "number"), ("seed", "number")],
        returns: "Array<JudgeReviewEntry>",
    },
    CommandSig {
        name: "rate_judge",
        args: &[("run", "number"), ("id", "number"), ("rating", "number")],
        returns: "JudgeRatingReport",
    },
    CommandSig {
        name: "judge_rating_report",
        args: &[("run", "number")],
        returns: "JudgeRatingReport",
    },
    CommandSig {
        name: "comments",
        args: &[("id", "number")],
        returns: "Array<Comment>",
    },
    CommandSig {
        name: "add_comment",
        args: &[("id", "number"), ("body", "string")],
        returns: "Array<Comment>",
    },
    CommandSig {
        name: "users",
        args: &[],
        returns: "Array<User>",
    },
    CommandSig {
        name: "team_status",
        args: &[],
        returns: "TeamStatus",
    },
    CommandSig {
        name: "team_sync",
        args: &[],
        returns: "TeamStatus",
    },
    CommandSig {
        name: "set_team_password",
        args: &[("password", "string | null")],
        returns: "null",
    },
    CommandSig {
        name: "team_publish",
        args: &[("url", "string"), ("password", "string | null")],
        returns: "TeamStatus",
    },
    CommandSig {
        name: "team_join",
        args: &[
            ("url", "string"),
            ("password", "string | null"),
            ("file", "string"),
        ],
        returns: "ProjectInfo",
    },
    CommandSig {
        name: "sync_conflicts",
        args: &[],
        returns: "Array<SyncConflict>",
    },
    CommandSig {
        name: "conflict_sides",
        args: &[("id", "number")],
        returns: "ConflictSides | null",
    },
    CommandSig {
        name: "resolve_sync_conflict",
        args: &[("id", "number"), ("edit", "Edit")],
        returns: "ItemDetail",
    },
    CommandSig {
        name: "people",
        args: &[],
        returns: "Array<PersonStats>",
    },
];

fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in name.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The full text of `bindings.ts`.
pub fn generate() -> String {
    let cfg = Config::new().with_large_int("number");
    let decls = [
        serde_json::Value::decl(&cfg),
        AnswerFormat::decl(&cfg),
        RefinementOp::decl(&cfg),
        IssueTag::decl(&cfg),
        ItemStatus::decl(&cfg),
        RefType::decl(&cfg),
        DistractorKind::decl(&cfg),
        Role::decl(&cfg),
        Phase1Dimension::decl(&cfg),
        CriterionIssue::decl(&cfg),
        CriterionFlag::decl(&cfg),
        BBox::decl(&cfg),
        LabeledBox::decl(&cfg),
        ItemImage::decl(&cfg),
        ChoiceOption::decl(&cfg),
        ItemContent::decl(&cfg),
        Problem::decl(&cfg),
        Range::decl(&cfg),
        Bin::decl(&cfg),
        BoxHistograms::decl(&cfg),
        Filter::decl(&cfg),
        Page::decl(&cfg),
        ItemRow::decl(&cfg),
        QueryResult::decl(&cfg),
        Facets::decl(&cfg),
        ItemView::decl(&cfg),
        Edit::decl(&cfg),
        RevisionInfo::decl(&cfg),
        Dataset::decl(&cfg),
        ImportReport::decl(&cfg),
        Progress::decl(&cfg),
        ApiError::decl(&cfg),
        ProjectInfo::decl(&cfg),
        AppInfo::decl(&cfg),
        SessionUser::decl(&cfg),
        ItemDetail::decl(&cfg),
        ImportRequest::decl(&cfg),
        Stage::decl(&cfg),
        StageDecision::decl(&cfg),
        Phase1Flag::decl(&cfg),
        Filtering::decl(&cfg),
        FunnelStep::decl(&cfg),
        RunRow::decl(&cfg),
        CriterionOverrule::decl(&cfg),
        ItemRunResult::decl(&cfg),
        ItemResults::decl(&cfg),
        CriterionOverruled::decl(&cfg),
        ModelForm::decl(&cfg),
        ModelCheck::decl(&cfg),
        EvalForm::decl(&cfg),
        EvalEstimate::decl(&cfg),
        EvalStatus::decl(&cfg),
        ModelPair::decl(&cfg),
        Share::decl(&cfg),
        DashboardRow::decl(&cfg),
        Dashboard::decl(&cfg),
        StageCell::decl(&cfg),
        StageViewRow::decl(&cfg),
        StageViewCorrelation::decl(&cfg),
        StageView::decl(&cfg),
        assay_core::store::ReplicaRecord::decl(&cfg),
        PanelPair::decl(&cfg),
        PanelCriterion::decl(&cfg),
        PanelDisagreement::decl(&cfg),
        PanelView::decl(&cfg),
        TriageEntry::decl(&cfg),
        RunListRow::decl(&cfg),
        RescoreResult::decl(&cfg),
        ReviewDecision::decl(&cfg),
        AgreementField::decl(&cfg),
        PairAgreement::decl(&cfg),
        Agreement::decl(&cfg),
        RoundPurpose::decl(&cfg),
        NewRound::decl(&cfg),
        BlindJudgement::decl(&cfg),
        BlindEntry::decl(&cfg),
        BlindItem::decl(&cfg),
        JudgeReviewEntry::decl(&cfg),
        PredictionsForm::decl(&cfg),
        PredictionsReport::decl(&cfg),
        RaterAgreement::decl(&cfg),
        JudgeRatingReport::decl(&cfg),
        AssigneeProgress::decl(&cfg),
        RoundSummary::decl(&cfg),
        QueueEntry::decl(&cfg),
        Comment::decl(&cfg),
        OpenMention::decl(&cfg),
        PersonStats::decl(&cfg),
        RoundQueue::decl(&cfg),
        MyWork::decl(&cfg),
        User::decl(&cfg),
        crate::team::TeamStatus::decl(&cfg),
        assay_core::store::sync::SyncConflict::decl(&cfg),
        assay_core::store::sync::ConflictSide::decl(&cfg),
        assay_core::store::sync::ConflictSides::decl(&cfg),
    ];
    let mut s = String::from(
        "// Generated from Rust by assay-api (`cargo xtask bindings`). Do not edit by hand.\n\
         /* eslint-disable */\n\
         import { invoke, Channel } from '@tauri-apps/api/core';\n\n",
    );
    for d in decls {
        s.push_str("export ");
        s.push_str(&d);
        s.push_str("\n\n");
    }
    // The value lists of the enums, from the same Rust lists the parsers use, so the UI never
    // keeps a list of its own.
    let lists: [(&str, &str, Vec<&str>); 18] = [
        (
            "AGREEMENT_FIELDS",
            "AgreementField",
            AgreementField::NAMES.to_vec(),
        ),
        (
            "ROUND_PURPOSES",
            "RoundPurpose",
            RoundPurpose::NAMES.to_vec(),
        ),
        (
            "ANSWER_FORMATS",
            "AnswerFormat",
            AnswerFormat::NAMES.to_vec(),
        ),
        (
            "REFINEMENT_OPS",
            "RefinementOp",
            RefinementOp::NAMES.to_vec(),
        ),
        ("ISSUE_TAGS", "IssueTag", IssueTag::NAMES.to_vec()),
        ("ITEM_STATUSES", "ItemStatus", ItemStatus::NAMES.to_vec()),
        ("REF_TYPES", "RefType", RefType::NAMES.to_vec()),
        (
            "DISTRACTOR_KINDS",
            "DistractorKind",
            DistractorKind::NAMES.to_vec(),
        ),
        ("ROLES", "Role", Role::NAMES.to_vec()),
        (
            "PHASE1_DIMENSIONS",
            "Phase1Dimension",
            Phase1Dimension::NAMES.to_vec(),
        ),
        (
            "BOX_CONVENTIONS",
            "string",
            assay_eval::scorers::grounding::BoxConvention::NAMES.to_vec(),
        ),
        ("VARIANTS", "string", assay_eval::Variant::NAMES.to_vec()),
        ("SCORERS", "string", assay_eval::ScorerKind::NAMES.to_vec()),
        (
            "PREDICTION_FORMATS",
            "string",
            assay_eval::predictions::PredictionFormat::NAMES.to_vec(),
        ),
        (
            "BUILTIN_TEMPLATES",
            "string",
            assay_eval::prompt::BUILTIN_TEMPLATES.to_vec(),
        ),
        (
            "FAILURE_TAGS",
            "string",
            crate::types::FAILURE_TAGS.to_vec(),
        ),
        ("VERSIONS", "string", assay_core::Version::NAMES.to_vec()),
        (
            "CRITERION_ISSUES",
            "CriterionIssue",
            CriterionIssue::NAMES.to_vec(),
        ),
    ];
    for (name, ty, values) in lists {
        let quoted: Vec<String> = values.iter().map(|v| format!("'{v}'")).collect();
        s.push_str(&format!(
            "export const {name}: readonly {ty}[] = [{}];\n",
            quoted.join(", ")
        ));
    }
    s.push('\n');
    s.push_str("export const commands = {\n");
    for c in COMMANDS {
        let params: Vec<String> = c.args.iter().map(|(n, t)| format!("{n}: {t}")).collect();
        let names: Vec<&str> = c.args.iter().map(|(n, _)| *n).collect();
        let payload = if names.is_empty() {
            String::new()
        } else {
            format!(", {{ {} }}", names.join(", "))
        };
        s.push_str(&format!(
            "  {}: ({}): Promise<{}> => invoke<{}>('{}'{}),\n",
            camel(c.name),
            params.join(", "),
            c.returns,
            c.returns,
            c.name,
            payload
        ));
    }
    s.push_str("};\n\nexport { Channel };\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/api/bindings.ts")
    }

    #[test]
    fn committed_bindings_are_fresh() {
        let want = generate();
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(path(), &want).unwrap();
        }
        let have = std::fs::read_to_string(path()).unwrap_or_default();
        assert!(
            have == want,
            "ui/src/lib/api/bindings.ts is stale: run `cargo xtask bindings`"
        );
    }

    #[test]
    fn command_names_become_camel_case() {
        assert_eq!(camel("query_items"), "queryItems");
        assert_eq!(camel("app_info"), "appInfo");
    }
}
