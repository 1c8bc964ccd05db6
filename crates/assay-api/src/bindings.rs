//! TypeScript bindings for the UI: every payload type (from ts-rs) and a typed wrapper for every
//! command. Generated into `ui/src/lib/api/bindings.ts`; a test fails when that file is stale.

use ts_rs::{Config, TypeVisitor, TS};

use crate::error::ApiError;
use crate::evaluation::{
    Dashboard, EvalEstimate, EvalForm, EvalStatus, ModelCheck, ModelForm, PanelView,
    PredictionsForm, PredictionsReport, SavedTemplate, StageView, TemplateForm, TemplateLibrary,
};
use crate::types::{
    AppInfo, CriterionOverruled, HybridResult, ImportRequest, ItemDetail, ItemResults, MyWork,
    ProjectInfo, RescoreResult, RunListRow, SessionUser, TriageEntry,
};
use assay_core::import::mapping::Mapping;
use assay_core::import::preview::ImportPreview;
use assay_core::import::{ImportReport, Progress};
use assay_core::store::compact::CompactReport;
use assay_core::store::{
    Agreement, AgreementField, BlindItem, BlindJudgement, Comment, Edit, Facets, Filter, Filtering,
    FunnelStep, JudgeRatingReport, JudgeReviewEntry, MajorityCheck, NewRound, Page, PersonStats,
    QueryResult, ReviewDecision, RoleChoice, RoundPurpose, RoundSummary, Stage, User,
};
use assay_core::{
    AnswerFormat, CriterionIssue, DistractorKind, IssueTag, ItemStatus, Phase1Dimension, RefType,
    RefinementOp, Role,
};

/// A command as the UI calls it: Rust name, arguments (JS name, TS type) and result type, all
/// derived from the declaration in `commands.rs`.
pub struct CommandSig {
    pub name: &'static str,
    pub args: Vec<(String, String)>,
    pub returns: String,
}

/// `Channel<T>` as a command argument: the shell takes Tauri's channel, the UI passes one.
pub struct Channel<T>(std::marker::PhantomData<T>);

impl<T: TS> TS for Channel<T> {
    type WithoutGenerics = Channel<ts_rs::Dummy>;
    type OptionInnerType = Self;
    fn name(cfg: &Config) -> String {
        format!("Channel<{}>", T::name(cfg))
    }
    fn inline(cfg: &Config) -> String {
        Self::name(cfg)
    }
    fn visit_dependencies(v: &mut impl TypeVisitor)
    where
        Self: 'static,
    {
        T::visit_dependencies(v);
    }
    fn visit_generics(v: &mut impl TypeVisitor)
    where
        Self: 'static,
    {
        T::visit_generics(v);
        v.visit::<T>();
    }
}

type PathBuf = std::path::PathBuf;
use crate::suggestions::{SuggestEstimateView, SuggestForm, SuggestStatus};
use crate::team::{TeamMember, TeamStatus};
use assay_core::export::{DatasetExport, ExportFormat, ExportReport};
use assay_core::grounding::formats::files::BoxExport;
use assay_core::store::team::sync::{ConflictSides, SyncConflict};
use assay_core::store::BoxApplyReport;
use assay_core::store::{BulkAction, BulkChange, BulkReport, ItemExtras, RunDetail, SavedView};
use assay_core::store::{Suggestion, SuggestionReport};
use assay_core::SuggestionValue;

macro_rules! signatures {
    ($( $kind:ident $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty ; )*) => {
        /// Every command, from `for_each_command!`.
        pub fn commands() -> Vec<CommandSig> {
            let cfg = Config::new().with_large_int("number");
            vec![$(
                CommandSig {
                    name: stringify!($name),
                    args: vec![$( (camel(stringify!($arg)), <$ty as TS>::name(&cfg)) ),*],
                    returns: <$ret as TS>::name(&cfg),
                }
            ),*]
        }

        /// Every type a command takes or returns, and the types those reach, in first-seen order.
        fn command_types(v: &mut Collect) {
            $(
                $( v.root::<$ty>(); )*
                v.root::<$ret>();
            )*
        }
    };
}
crate::for_each_command!(signatures);

/// Gathers the declaration of every named type reachable from the commands, once each.
struct Collect {
    cfg: Config,
    seen: std::collections::HashSet<std::any::TypeId>,
    decls: Vec<String>,
}

impl Collect {
    fn root<T: TS + 'static + ?Sized>(&mut self) {
        self.visit::<T>();
    }
}

impl TypeVisitor for Collect {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if !self.seen.insert(std::any::TypeId::of::<T>()) {
            return;
        }
        if T::output_path().is_some() {
            // One Rust type can be reached under several type ids (serde_json's Value through
            // its map and its array): declared once.
            let decl = T::decl(&self.cfg);
            if !self.decls.contains(&decl) {
                self.decls.push(decl);
            }
        }
        T::visit_dependencies(self);
        T::visit_generics(self);
    }
}

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
    let _cfg = Config::new().with_large_int("number");
    let mut collect = Collect {
        cfg: Config::new().with_large_int("number"),
        seen: Default::default(),
        decls: Vec::new(),
    };
    // Types the UI uses beyond the commands' own: the error every command may reject with.
    collect.root::<ApiError>();
    command_types(&mut collect);
    // ts-rs visits a type's dependencies in no fixed order: sorted by name, the file is the
    // same on every run.
    let mut decls = collect.decls;
    decls.sort_by_key(|d| {
        d.split_once("type ")
            .map(|(_, rest)| rest.split([' ', '<', '=']).next().unwrap_or("").to_string())
            .unwrap_or_default()
    });
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
    // Kinds a rule picks out (which scorers need a judge and which ask one when given, which
    // suggestions decide a stage), from the Rust rule itself, so a form cannot ask otherwise.
    let scorers = |rule: fn(assay_eval::ScorerKind) -> bool| -> Vec<&str> {
        assay_eval::ScorerKind::ALL
            .into_iter()
            .filter(|k| rule(*k))
            .map(|k| k.as_str())
            .collect()
    };
    let stage_kinds: Vec<&str> = assay_core::SuggestionKind::ALL
        .into_iter()
        .filter(|k| k.decides_stage())
        .map(|k| k.as_str())
        .collect();
    let lists: [(&str, &str, Vec<&str>); 23] = [
        (
            "EXPORT_FORMATS",
            "ExportFormat",
            ExportFormat::NAMES.to_vec(),
        ),
        (
            "BOX_FORMATS",
            "string",
            assay_core::grounding::formats::BoxFormat::NAMES.to_vec(),
        ),
        (
            "SCORERS_NEEDING_JUDGE",
            "Scorer",
            scorers(assay_eval::ScorerKind::needs_judge),
        ),
        (
            "SCORERS_USING_JUDGE",
            "Scorer",
            scorers(assay_eval::ScorerKind::uses_judge),
        ),
        (
            "SUGGESTION_KINDS_DECIDING_STAGE",
            "SuggestionKind",
            stage_kinds,
        ),
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
        ("SCORERS", "Scorer", assay_eval::ScorerKind::NAMES.to_vec()),
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
    let quote =
        |values: &[&str]| -> Vec<String> { values.iter().map(|v| format!("'{v}'")).collect() };
    s.push_str(&format!(
        "export type Scorer = {};\n",
        quote(&assay_eval::ScorerKind::NAMES).join(" | ")
    ));
    for (name, ty, values) in lists {
        s.push_str(&format!(
            "export const {name}: readonly {ty}[] = [{}];\n",
            quote(&values).join(", ")
        ));
    }
    // The seeds' presets as the run form fills them in (the engine checks them again).
    s.push_str(
        "export type ProtocolPreset = { runs: number; variants: readonly string[]; scorers: readonly Scorer[]; needs_judge: boolean; unparsed: string; sampling: string | null };\n",
    );
    s.push_str("export const PROTOCOL_PRESETS: Readonly<Record<string, ProtocolPreset>> = {\n");
    for p in assay_core::EvalProtocol::ALL {
        let preset = assay_eval::protocol::preset(p);
        let variants: Vec<&str> = preset.variants.iter().map(|v| v.as_str()).collect();
        let scorers: Vec<&str> = preset.scorers.iter().map(|v| v.as_str()).collect();
        s.push_str(&format!(
            "  '{}': {{ runs: {}, variants: [{}], scorers: [{}], needs_judge: {}, unparsed: '{}', sampling: {} }},\n",
            p.as_str(),
            preset.runs,
            quote(&variants).join(", "),
            quote(&scorers).join(", "),
            preset.needs_judge,
            preset.unparsed.label(),
            preset
                .sampling
                .describe()
                .map_or("null".to_string(), |d| format!("'{d}'"))
        ));
    }
    s.push_str("};\n");
    s.push('\n');
    s.push_str("export const commands = {\n");
    for c in commands() {
        let params: Vec<String> = c.args.iter().map(|(n, t)| format!("{n}: {t}")).collect();
        let names: Vec<&str> = c.args.iter().map(|(n, _)| n.as_str()).collect();
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
